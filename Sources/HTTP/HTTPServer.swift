#if canImport(Glibc)
import Glibc
#endif
internal import CMicroHTTPD

/// A request as the handler sees it.
public struct HTTPRequest: Sendable {
    public let method: String
    public let path: String
    /// The `Authorization` header, if any.
    public let authorization: String?
}

/// A complete response.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]

    public init(status: Int = 200, contentType: String = "text/plain; charset=utf-8", body: [UInt8]) {
        self.status = status; self.contentType = contentType; self.body = body
    }

    public init(status: Int = 200, contentType: String = "text/plain; charset=utf-8", text: String) {
        self.init(status: status, contentType: contentType, body: Array(text.utf8))
    }
}

public struct HTTPError: Error, CustomStringConvertible {
    public let description: String
}

/// A small HTTP server on libmicrohttpd's own thread, for `/metrics`, `/healthz` and the JSON API.
///
/// Requests other than GET are refused; when a token is set, every request must carry
/// `Authorization: Bearer <token>`. The handler runs on the library's thread and must be quick.
public final class HTTPServer: @unchecked Sendable {
    private let daemon: OpaquePointer
    private let box: Unmanaged<HandlerBox>
    /// The port bound (useful with port 0).
    public let port: Int

    /// Listens on `address` (`127.0.0.1:9464`; IPv4 only).
    public init(address: String, token: String? = nil, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws {
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
        let box = Unmanaged.passRetained(HandlerBox(token: token, handler: handler))
        guard let daemon = withUnsafePointer(to: &sin, { whereabouts_mhd_start($0, onRequest, box.toOpaque()) }) else {
            box.release()
            throw HTTPError(description: "cannot listen on \(address) (in use, or not allowed)")
        }
        self.daemon = daemon
        self.box = box
        self.port = port == 0 ? Int(whereabouts_mhd_port(daemon)) : Int(port)
    }

    deinit {
        MHD_stop_daemon(daemon)
        box.release()
    }
}

final class HandlerBox: Sendable {
    let token: String?
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    init(token: String?, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { self.token = token; self.handler = handler }

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return HTTPResponse(status: 405, text: "only GET\n") }
        if let token, request.authorization != "Bearer \(token)" { return HTTPResponse(status: 401, text: "token required\n") }
        return handler(request)
    }
}

/// libmicrohttpd's access handler: the exact C signature, the Swift object from the context.
private func onRequest(_ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                       _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
                       _ uploadSize: UnsafeMutablePointer<Int>?, _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result {
    guard let context, let connection else { return MHD_Result.NO }
    // The first call for a request only announces it; answer on the second.
    if let state, state.pointee == nil {
        state.pointee = UnsafeMutableRawPointer(bitPattern: 1)
        return MHD_Result.YES
    }
    if let uploadSize, uploadSize.pointee != 0 { uploadSize.pointee = 0; return MHD_Result.YES }
    let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
    let auth = MHD_lookup_connection_value(connection, MHD_ValueKind.HEADER_KIND, "Authorization").map { String(cString: $0) }
    let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET",
                              path: url.map { String(cString: $0) } ?? "/", authorization: auth)
    let response = box.respond(request)
    let result = response.body.withUnsafeBytes { bytes -> MHD_Result in
        guard let r = MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                                       MHD_ResponseMemoryMode.RESPMEM_MUST_COPY) else { return MHD_Result.NO }
        defer { MHD_destroy_response(r) }
        MHD_add_response_header(r, "Content-Type", response.contentType)
        return MHD_queue_response(connection, UInt32(response.status), r)
    }
    return result
}
