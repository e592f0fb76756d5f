import Hummingbird
import Logging
import NIOConcurrencyHelpers
import OPEPHistory

/// Answers 503 while the history's database cannot be reached (a PostgreSQL server down or
/// restarting), so a phone knows to send its session again later; logs one line when the outage
/// starts and one when an API call succeeds again. The store reconnects by itself.
struct HistoryOutage<Context: RequestContext>: RouterMiddleware {
    let down = NIOLockedValueBox(false)

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            if request.uri.path.hasPrefix("/api/"), down.withLockedValue({ was in defer { was = false }; return was }) {
                context.logger.notice("the history's database is reachable again")
            }
            return response
        } catch let error as HistoryUnavailable {
            if !down.withLockedValue({ was in defer { was = true }; return was }) {
                context.logger.error("\(error); answering 503 until it is back")
            }
            throw HistoryUnavailableAnswer()
        }
    }
}

/// 503 with `Retry-After` and the JSON error line.
struct HistoryUnavailableAnswer: HTTPResponseError {
    /// Seconds a client is asked to wait before trying again.
    static let retryAfterSeconds = 5

    var status: HTTPResponse.Status { .serviceUnavailable }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = jsonResponse(
            LiveSession.encode(["error": "the history's database cannot be reached just now; try again in a moment"]),
            status: status)
        response.headers[.retryAfter] = "\(Self.retryAfterSeconds)"
        return response
    }
}
