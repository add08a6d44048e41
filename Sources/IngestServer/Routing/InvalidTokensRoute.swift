import Dispatch
import Foundation
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
        switch InvalidTokenFeed.Query.parse(since: head.query["since"], limit: head.query["limit"], cursor: head.query["cursor"]) {
        case .failure(let problem):
            metrics.failedRequests.increment([Route.invalidTokens.rawValue, "invalid_query"])
            return .respond(.error(400, "invalid_query", problem.description))
        case .success(let query):
            guard health.isUp else { return .respond(.unavailable(retryAfter: config.retryAfterUnavailable)) }
            return .readBody(limit: 0, context: FeedRequest(appID: key.appID, query: query))
        }
    }

    /// Reads the page off the libmicrohttpd thread, which goes back to serving ingest at once.
    func handleFeed(_ request: FeedRequest, reply: any ReplySlot) {
        let feed = self.feed
        let logger = self.logger
        let retryAfter = config.retryAfterUnavailable
        DispatchQueue.global().async {
            do throws(StoreError) {
                reply.send(.json(200, try feed(request.appID, request.query).json))
            } catch {
                logger.error("invalid-token feed read failed", ["app_id": request.appID, "detail": error.debugDescription])
                reply.send(
                    error.isConnectionProblem
                        ? .error(503, "unavailable", "the database is unreachable; retry later").adding("Retry-After", "\(retryAfter)")
                        : .error(500, "internal_error", "the feed could not be read"))
            }
        }
    }
}
