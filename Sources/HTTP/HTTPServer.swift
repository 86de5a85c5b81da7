#if canImport(Glibc)
import Glibc
#endif
import Synchronization
internal import CMicroHTTPD

/// A request as the handler sees it.
public struct HTTPRequest: Sendable {
    public let method: String
    /// The path, without the query string.
    public let path: String
    /// The `Authorization` header, if any.
    public let authorization: String?
    /// The query string's arguments, decoded (the last of a repeated name wins).
    public let query: [String: String]
    /// Bytes of the path and the query string together, as received.
    public let length: Int

    public init(method: String = "GET", path: String, authorization: String? = nil, query: [String: String] = [:], length: Int? = nil) {
        self.method = method; self.path = path; self.authorization = authorization; self.query = query
        self.length = length ?? path.utf8.count + query.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 }
    }
}

/// A complete response, or a stream of server-sent events.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// Further headers (`Cache-Control`, …).
    public var headers: [(String, String)] = []
    /// When set, the body is this stream, sent as it fills until it ends.
    public var stream: EventStream?

    public init(status: Int = 200, contentType: String = "text/plain; charset=utf-8", body: [UInt8]) {
        self.status = status; self.contentType = contentType; self.body = body
    }

    public init(status: Int = 200, contentType: String = "text/plain; charset=utf-8", text: String) {
        self.init(status: status, contentType: contentType, body: Array(text.utf8))
    }

    /// A `text/event-stream` response fed by `stream`.
    public init(stream: EventStream) {
        self.init(contentType: "text/event-stream", body: [])
        self.stream = stream
        headers = [("Cache-Control", "no-store"), ("X-Accel-Buffering", "no")]
    }
}

public struct HTTPError: Error, CustomStringConvertible {
    public let description: String
}

/// A small HTTP server for `/metrics`, `/healthz`, the JSON API, the live event stream and the
/// map's page.
///
/// One thread per connection (libmicrohttpd's), so that a long event stream or a slow history
/// query never holds another request; at most `connectionLimit` connections. Requests other
/// than GET are refused; when a token is set, every request must carry `Authorization: Bearer
/// <token>`. `observe` sees every status answered, refusals included, for the metrics.
public final class HTTPServer: @unchecked Sendable {
    private let daemon: OpaquePointer
    private let box: Unmanaged<HandlerBox>
    /// The port bound (useful with port 0).
    public let port: Int
    /// Connections served at once; more wait in the kernel's backlog.
    public static let connectionLimit = 64
    /// Longest path and query string accepted (414 beyond).
    public static let maxRequestLength = 4096

    /// Listens on `address` (`127.0.0.1:9464`; IPv4 only).
    /// `open`: paths served without the token (the map's page: it holds no data and asks for one).
    public init(address: String, token: String? = nil, open: Set<String> = [], observe: (@Sendable (HTTPRequest, Int) -> Void)? = nil,
                handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            throw HTTPError(description: "bad listen address '\(address)' (want ADDR:PORT)")
        }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        let host = String(address[..<colon])
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &sin.sin_addr) == 1 else {
            throw HTTPError(description: "bad listen address '\(host)' (want an IPv4 address)")
        }
        let box = Unmanaged.passRetained(HandlerBox(token: token, open: open, observe: observe, handler: handler))
        guard let daemon = withUnsafePointer(to: &sin, { whereabouts_mhd_start($0, onRequest, box.toOpaque(), UInt32(Self.connectionLimit)) }) else {
            box.release()
            throw HTTPError(description: "cannot listen on \(address) (in use, or not allowed)")
        }
        self.daemon = daemon
        self.box = box
        self.port = port == 0 ? Int(whereabouts_mhd_port(daemon)) : Int(port)
    }

    deinit {
        // Streams first: libmicrohttpd waits for every connection thread, and a stream's
        // thread returns only once its stream has ended.
        box.takeUnretainedValue().closeStreams()
        MHD_stop_daemon(daemon)
        box.release()
    }
}

final class HandlerBox: Sendable {
    let token: String?
    let open: Set<String>
    let observe: (@Sendable (HTTPRequest, Int) -> Void)?
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    /// Streams being served, to end them when the server stops.
    private let streams = Mutex<[ObjectIdentifier: EventStream]>([:])

    init(token: String?, open: Set<String>, observe: (@Sendable (HTTPRequest, Int) -> Void)?,
         handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.token = token; self.open = open; self.observe = observe; self.handler = handler
    }

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        let response = decide(request)
        observe?(request, response.status)
        return response
    }

    private func decide(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return HTTPResponse(status: 405, text: "only GET\n") }
        if let token, !open.contains(request.path), !Self.matches(request.authorization, token) { return HTTPResponse(status: 401, text: "token required\n") }
        guard request.length <= HTTPServer.maxRequestLength else {
            return HTTPResponse(status: 414, text: "request longer than \(HTTPServer.maxRequestLength) bytes\n")
        }
        return handler(request)
    }

    /// `Bearer <token>`, compared in time independent of where the first difference is.
    static func matches(_ authorization: String?, _ token: String) -> Bool {
        let given = Array((authorization ?? "").utf8), wanted = Array("Bearer \(token)".utf8)
        var difference = given.count == wanted.count ? 0 : 1
        for i in 0..<min(given.count, wanted.count) { difference |= Int(given[i] ^ wanted[i]) }
        return difference == 0
    }

    func track(_ stream: EventStream) {
        let key = ObjectIdentifier(stream)
        streams.withLock { $0[key] = stream }
        stream.onEnd { [weak self] in _ = self?.streams.withLock { $0.removeValue(forKey: key) } }
    }

    func closeStreams() {
        for stream in streams.withLock({ Array($0.values) }) { stream.close() }
    }
}
