import Hummingbird

/// Under `/api/`, a route that does not exist, or not for the request's method, says so as JSON
/// (`404 {"error": "no such API: POST /api/..."}`) as every other answer of the API does; the
/// router's own 404 has no body.
struct UnknownAPIRoutes<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && request.uri.path.hasPrefix("/api/") {
            throw APIError(.notFound, "no such API: \(request.method) \(request.uri.path)")
        }
    }
}
