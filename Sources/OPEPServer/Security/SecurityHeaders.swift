import Hummingbird

/// Headers that keep the pages to their own code: a Content-Security-Policy without inline script
/// or style (WebAssembly allowed for the page's engine), no framing, no MIME sniffing, no referrer.
/// Added to every response, errors included.
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        [
            "default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "img-src 'self' data: blob:",
            "connect-src 'self'", "worker-src 'self'", "manifest-src 'self'", "media-src 'self' blob:", "object-src 'none'",
            "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    static var headers: HTTPFields {
        [
            .contentSecurityPolicy: contentSecurityPolicy,
            .xContentTypeOptions: "nosniff",
            HTTPFields.Element.Name("X-Frame-Options")!: "DENY",
            HTTPFields.Element.Name("Referrer-Policy")!: "no-referrer",
            HTTPFields.Element.Name("Cross-Origin-Opener-Policy")!: "same-origin",
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        for field in Self.headers where response.headers[field.name] == nil {
            response.headers.append(field)
        }
        return response
    }
}
