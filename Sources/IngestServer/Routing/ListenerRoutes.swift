import Foundation
import HTTPServer

/// The routes one listener answers; the others are 404 there. With `serve --admin-listen` the
/// public listener answers the ingest API and the admin listener the operations endpoints.
enum RouteSet: Sendable {
    case all, ingest, operations

    func serves(_ route: Route) -> Bool {
        switch self {
        case .all: true
        case .ingest: route.scope != nil
        case .operations: route.scope == nil
        }
    }
}

/// A listener's view of the service: requests for routes outside its set get 404 before
/// anything else is looked at; the rest go to the service.
final class ListenerRoutes: HTTPHandler {
    private let service: any HTTPHandler
    private let routes: RouteSet

    init(_ service: any HTTPHandler, routes: RouteSet) {
        self.service = service
        self.routes = routes
    }

    func decide(_ head: RequestHead) -> HeadDecision {
        if let route = Route(rawValue: head.path), !routes.serves(route) { return .respond(.notFound) }
        return service.decide(head)
    }

    func bodyTooLarge(_ head: RequestHead) -> HTTPResponse { service.bodyTooLarge(head) }

    func handle(_ head: RequestHead, body: [UInt8], context: any Sendable, reply: any ReplySlot) {
        service.handle(head, body: body, context: context, reply: reply)
    }

    func responded(_ head: RequestHead, status: Int) { service.responded(head, status: status) }

    func commonHeaders(_ head: RequestHead) -> [(name: String, value: String)] { service.commonHeaders(head) }
}
