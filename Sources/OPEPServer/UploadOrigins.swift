import Hummingbird

/// Lets the pages of the named origins (the coach installed on a phone, served from another
/// address) send finished sessions to `POST /api/sessions` from the browser: CORS for that one
/// route and those origins only; every other route and origin stays same-origin.
struct UploadOrigins<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>
    static var path: String { "/api/sessions" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path == Self.path, request.method == .post || request.method == .options,
            let origin = request.headers[.origin], origins.contains(origin)
        else {
            return try await next(request, context)
        }
        if request.method == .options {
            var response = Response(status: .noContent)
            allow(origin, in: &response)
            response.headers[.accessControlAllowMethods] = "POST"
            response.headers[.accessControlAllowHeaders] = "Content-Type, Authorization"
            response.headers[.accessControlMaxAge] = "600"
            return response
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        allow(origin, in: &response)
        return response
    }

    private func allow(_ origin: String, in response: inout Response) {
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.vary] = "Origin"
    }
}
