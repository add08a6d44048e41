import Dispatch
import Foundation
import HTTPServer
import Store

/// What `decideFeed` checked of a `GET /v1/tokens/invalid`, handed back with its (empty) body.
struct FeedRequest: Sendable {
    var appID: String
    var query: InvalidTokenFeed.Query
}

/// `GET /v1/tokens/invalid`: the key's own app's tokens a sender should stop pushing to.
extension IngestService {
    /// Checks the query before anything is read; the key was checked (scope `sends`).
    func decideFeed(_ head: RequestHead, key: KeyRecord) -> HeadDecision {
        switch InvalidTokenFeed.Query.parse(
            since: head.query["since"], limit: head.query["limit"], cursor: head.query["cursor"])
        {
        case .failure(let problem):
            metrics.failedRequests.increment([Route.invalidTokens.rawValue, "invalid_query"])
            return .respond(.error(400, "invalid_query", problem.description))
        case .success(let query):
            guard health.isUp else { return .respond(.unavailable(retryAfter: config.retryAfterUnavailable)) }
            // A read counts as one event against the key's rate, like a request of one event.
            if let wait = rateLimiter.admit(key: key, events: 1) {
                metrics.throttled.increment([metrics.appLabel(key.appID), Throttle.rateLimit.rawValue])
                return .respond(.throttled(.rateLimit, retryAfter: wait))
            }
            return .readBody(limit: 0, context: FeedRequest(appID: key.appID, query: query))
        }
    }

    /// Reads the page on a feed worker (its own threads and, in `PostgresIngestStore`, its own
    /// connections), so feed reads never take a writer's connection or an HTTP thread.
    func handleFeed(_ request: FeedRequest, reply: any ReplySlot) {
        do throws(StoreError) {
            reply.send(.json(200, try feed(request.appID, request.query).json))
        } catch {
            logger.error("invalid-token feed read failed", ["app_id": request.appID, "detail": error.debugDescription])
            reply.send(
                error.isConnectionProblem
                    ? .error(503, "unavailable", "the database is unreachable; retry later").adding(
                        "Retry-After", "\(config.retryAfterUnavailable)")
                    : .error(500, "internal_error", "the feed could not be read"))
        }
    }
}
