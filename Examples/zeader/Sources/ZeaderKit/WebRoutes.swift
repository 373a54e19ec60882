// The web server (Hummingbird 2): the page, its live stream, and three
// actions. Every handler runs on a server thread and reaches managed objects
// only inside the view context's perform, or through a background context;
// what crosses back is a String or an object ID.
//
// Bad requests (a malformed or unknown object ID, an ID of another store,
// malformed form data, a body over 64 KiB, an address a feed cannot come
// from) get a 4xx answer with a message and change nothing.
import Coherence
import Foundation
import Hummingbird
import ServiceLifecycle

/// zeader's web application.
public struct WebRoutes: Sendable {
    /// The largest request body accepted.
    public static let maximumBodySize = 64 * 1024

    let library: Library
    let broadcaster: Broadcaster
    let log: @Sendable (String) -> Void

    /// Routes over `library`, whose pages follow `broadcaster`; `log` gets a
    /// line per action.
    public init(library: Library, broadcaster: Broadcaster, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.library = library
        self.broadcaster = broadcaster
        self.log = log
    }

    /// The router: `GET /`, `GET /events`, `POST /items/read`,
    /// `POST /servers/read`, `POST /feeds`.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { request, _ in try await page(request) }
        router.get("/events") { request, _ in try await events(request) }
        router.post("/items/read") { request, _ in await respond(to: request) { form in try await markItemRead(form) } }
        router.post("/servers/read") { request, _ in await respond(to: request) { form in try await markServerRead(form) } }
        router.post("/feeds") { request, _ in await respond(to: request) { form in try await addFeed(form) } }
        return router
    }

    /// The application on 127.0.0.1 at `port` (0: one the system picks);
    /// `onRunning` gets the page's address once it listens.
    public func application(port: Int, onRunning: @escaping @Sendable (String) -> Void)
        -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "zeader"),
            onServerRunning: { channel in onRunning("http://127.0.0.1:\(channel.localAddress?.port ?? port)/") })
    }

    // MARK: Pages

    private func page(_ request: Request) async throws -> Response {
        let selected = request.uri.queryParameters.get("server").flatMap { try? library.objectID($0, of: Server.self) }
        let context = library.viewContext
        let html = try await context.perform { try LiveStream.page(in: context, selected: selected) }
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// Server-Sent Events: a snapshot, then every change, until the page
    /// closes or the server stops.
    private func events(_ request: Request) async throws -> Response {
        let selected = request.uri.queryParameters.get("server").flatMap { try? library.objectID($0, of: Server.self) }
        let (context, broadcaster) = (library.viewContext, broadcaster)
        let stream = try await context.perform {
            try LiveStream.subscribe(in: context, broadcaster: broadcaster, selected: selected)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                // The stream ends when the server shuts down (SIGINT, SIGTERM),
                // which would otherwise wait for ever for this response.
                try await withGracefulShutdownHandler {
                    for await event in stream { try await writer.write(ByteBuffer(string: "data: \(event)\n\n")) }
                } onGracefulShutdown: {
                    broadcaster.finish()
                }
                try await writer.finish(nil)
            })
    }

    // MARK: Actions

    private struct Form: Decodable {
        var id: String?
        var url: String?
    }

    /// An action's refusal: a status and a message.
    private struct Refusal: Error {
        var status: HTTPResponse.Status
        var message: String
    }

    private func markItemRead(_ form: Form) async throws -> String {
        let id = try objectID(form.id, of: FeedItem.self)
        try await library.setRead(true, item: id)
        return "Marked read"
    }

    private func markServerRead(_ form: Form) async throws -> String {
        let id = try objectID(form.id, of: Server.self)
        let count = try await library.markAllRead(server: id)
        log("marked \(count) item(s) read")
        return "Marked \(count) item\(count == 1 ? "" : "s") read"
    }

    private func addFeed(_ form: Form) async throws -> String {
        guard let address = form.url else { throw Refusal(status: .badRequest, message: "the form has no url") }
        let source: FeedSource
        do { source = try FeedSource(address) } catch { throw Refusal(status: .badRequest, message: error.description) }
        guard case .web = source else {
            throw Refusal(status: .badRequest, message: "\(address): the page adds http(s) feeds only")
        }
        let summary = try await FeedImporter(library: library).importFeed(from: address)
        log(summary.description)
        return summary.description
    }

    private func objectID<Entity: ManagedObject>(_ text: String?, of type: Entity.Type) throws -> ManagedObjectID {
        guard let text else { throw Refusal(status: .badRequest, message: "the form has no id") }
        return try library.objectID(text, of: type)
    }

    /// Reads the form, runs `action`, and answers: its message (to the
    /// page's script) or a redirect to the page (to a plain form), or the
    /// refusal's status and message.
    private func respond(to request: Request, _ action: (Form) async throws -> String) async -> Response {
        do {
            try Self.checkOrigin(of: request)
            let body = try await request.body.collect(upTo: Self.maximumBodySize)
            let form: Form
            do {
                form = try URLEncodedFormDecoder().decode(Form.self, from: String(buffer: body))
            } catch {
                throw Refusal(status: .badRequest, message: "malformed form data: \(error)")
            }
            let message = try await action(form)
            guard request.headers[.init("X-Requested-With")!] == "fetch" else {
                return Response(status: .seeOther, headers: [.location: "/"])
            }
            return Self.text(.ok, message)
        } catch let refusal as Refusal {
            return Self.text(refusal.status, refusal.message)
        } catch let error as ReadingError {
            return Self.text(error.isMalformed ? .badRequest : .notFound, error.description)
        } catch let error as FeedError {
            return Self.text(error.isRemote ? .badGateway : .unprocessableContent, error.description)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return Self.text(.contentTooLarge, "the request is larger than \(Self.maximumBodySize) bytes")
        } catch {
            return Self.text(.internalServerError, "\(error)")
        }
    }

    /// Refuses requests another site's page makes the browser send (a form
    /// that posts to 127.0.0.1), and requests for another host name (DNS
    /// rebinding): the page is for this machine's own browser.
    private static func checkOrigin(of request: Request) throws {
        let host = request.head.authority
        if let host, !isLoopback(host) {
            throw Refusal(status: .forbidden, message: "zeader answers requests for 127.0.0.1 or localhost only, not \(host)")
        }
        if let origin = request.headers[.origin], origin != "null" {
            guard let url = URL(string: origin), let originHost = url.host, isLoopback(originHost),
                  host == nil || (url.port.map { "\(originHost):\($0)" } ?? originHost) == host
            else { throw Refusal(status: .forbidden, message: "a page from \(origin) cannot change zeader's feeds") }
        }
        if let site = request.headers[.init("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
            throw Refusal(status: .forbidden, message: "a \(site) page cannot change zeader's feeds")
        }
    }

    private static func isLoopback(_ host: String) -> Bool {
        let name = host.hasPrefix("[") ? String(host.prefix { $0 != "]" }) + "]" : String(host.prefix { $0 != ":" })
        return ["127.0.0.1", "localhost", "[::1]"].contains(name.lowercased())
    }

    private static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: message)))
    }
}

extension ReadingError {
    var isMalformed: Bool {
        if case .malformedID = self { true } else { false }
    }
}

extension FeedError {
    /// The remote server failed, not the request.
    var isRemote: Bool {
        switch self {
        case .unreachable, .httpStatus, .tooLarge: true
        default: false
        }
    }
}
