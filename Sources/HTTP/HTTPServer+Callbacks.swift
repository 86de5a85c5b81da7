#if canImport(Glibc)
import Glibc
#endif
internal import CMicroHTTPD

// libmicrohttpd's callbacks: the exact C signatures, the Swift objects from their contexts.

/// The access handler: the first call for a request only announces it; answer on the second.
func onRequest(_ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
               _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
               _ uploadSize: UnsafeMutablePointer<Int>?, _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result {
    guard let context, let connection else { return MHD_Result.NO }
    if let state, state.pointee == nil {
        state.pointee = UnsafeMutableRawPointer(bitPattern: 1)
        return MHD_Result.YES
    }
    if let uploadSize, uploadSize.pointee != 0 { uploadSize.pointee = 0; return MHD_Result.YES }
    let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
    let request = makeRequest(connection, url: url, method: method)
    let response = box.respond(request)
    if let stream = response.stream { return queueStream(stream, response, on: connection, box: box) }
    return response.body.withUnsafeBytes { bytes -> MHD_Result in
        guard let r = MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                                       MHD_ResponseMemoryMode.RESPMEM_MUST_COPY) else { return MHD_Result.NO }
        defer { MHD_destroy_response(r) }
        addHeaders(response, to: r)
        return MHD_queue_response(connection, UInt32(response.status), r)
    }
}

private func addHeaders(_ response: HTTPResponse, to r: OpaquePointer) {
    MHD_add_response_header(r, "Content-Type", response.contentType)
    for (name, value) in response.headers { MHD_add_response_header(r, name, value) }
}

/// The request's method, path, token and query arguments (libmicrohttpd decodes them).
private func makeRequest(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?) -> HTTPRequest {
    let auth = MHD_lookup_connection_value(connection, MHD_ValueKind.HEADER_KIND, "Authorization").map { String(cString: $0) }
    let arguments = QueryCollector()
    let cls = Unmanaged.passUnretained(arguments).toOpaque()
    _ = MHD_get_connection_values(connection, MHD_ValueKind.GET_ARGUMENT_KIND, { cls, _, key, value in
        guard let cls, let key else { return MHD_Result.YES }
        let collector = Unmanaged<QueryCollector>.fromOpaque(cls).takeUnretainedValue()
        let k = String(cString: key), v = value.map { String(cString: $0) } ?? ""
        collector.length += k.utf8.count + v.utf8.count + 2
        // Past the limit the request is refused (414) anyway: keep no more.
        if collector.length <= HTTPServer.maxRequestLength { collector.values[k] = v }
        return MHD_Result.YES
    }, cls)
    let path = url.map { String(cString: $0) } ?? "/"
    return HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: path, authorization: auth,
                       query: arguments.values, length: path.utf8.count + arguments.length)
}

private final class QueryCollector {
    var values: [String: String] = [:]
    var length = 0
}

/// An event stream: a response of unknown length read from the stream on this connection's thread.
private func queueStream(_ stream: EventStream, _ response: HTTPResponse, on connection: OpaquePointer, box: HandlerBox) -> MHD_Result {
    box.track(stream)
    let cls = Unmanaged.passRetained(stream).toOpaque()
    guard let r = MHD_create_response_from_callback(UInt64.max, 16 * 1024, { cls, _, buffer, max in
        guard let cls, let buffer else { return -2 }
        return Unmanaged<EventStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
    }, cls, { cls in
        guard let cls else { return }
        let stream = Unmanaged<EventStream>.fromOpaque(cls).takeRetainedValue()
        stream.ended()
    }) else {
        Unmanaged<EventStream>.fromOpaque(cls).takeRetainedValue().ended()
        return MHD_Result.NO
    }
    defer { MHD_destroy_response(r) }
    addHeaders(response, to: r)
    return MHD_queue_response(connection, UInt32(response.status), r)
}
