import Foundation
import HTTP
import MapAssets
import Testing

/// The event stream's bound: a client that does not read is dropped when its queue would pass
/// the capacity, and later sends see it ended; what was queued is read in order.
@Test func aStreamIsDroppedWhenItsQueueWouldPassItsCapacity() {
    let stream = EventStream(capacity: 100, heartbeat: 0.05)
    #expect(stream.send(Array(repeating: 1, count: 60)) == .queued)
    #expect(stream.send(Array(repeating: 2, count: 60)) == .dropped)
    #expect(stream.send([3]) == .ended)
    #expect(!stream.isOpen)
}

/// Over a real socket: the stream's events arrive as they are sent, a heartbeat comment
/// keeps a quiet stream alive, and stopping the server ends the stream.
@Test func aStreamingResponseDeliversEventsAsTheyAreSent() throws {
    let stream = EventStream(capacity: 1 << 16, heartbeat: 0.2)
    let server = try HTTPServer(address: "127.0.0.1:0") { _ in HTTPResponse(stream: stream) }
    let fd = try connectTo(server.port)
    defer { close(fd) }
    _ = "GET /live HTTP/1.0\r\n\r\n".withCString { send(fd, $0, strlen($0), 0) }
    stream.send(Array("event: a\ndata: 1\n\n".utf8))
    #expect(try readUntil(fd, "data: 1").contains("text/event-stream"))
    stream.send(Array("event: b\ndata: 2\n\n".utf8))
    #expect(try readUntil(fd, "data: 2").contains("event: b"))
    #expect(try readUntil(fd, ":\n\n").contains(":\n\n"), "no heartbeat on a quiet stream")
}

/// The page's paths need no token; the API does; a query is decoded; a request too long is 414.
@Test func openPathsQueriesAndLongRequests() throws {
    let server = try HTTPServer(address: "127.0.0.1:0", token: "k", open: ["/"]) { request in
        HTTPResponse(text: "\(request.path) \(request.query["a"] ?? "-")")
    }
    #expect(try httpGet(port: server.port, path: "/").status == 200)
    #expect(try httpGet(port: server.port, path: "/api").status == 401)
    let decoded = try httpGet(port: server.port, path: "/api?a=x%20y%3C", headers: ["Authorization: Bearer k"])
    #expect(decoded.status == 200 && decoded.body == "/api x y<")
    let long = try httpGet(port: server.port, path: "/api?a=" + String(repeating: "z", count: 5000), headers: ["Authorization: Bearer k"])
    #expect(long.status == 414)
}

/// Every file of the page's folder is embedded and served (a file added there but not to
/// `MapAssets.files` would be missing from the binary).
@Test func everyFileOfThePageIsEmbedded() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/MapAssets/web")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
    #expect(Set(names) == Set(MapAssets.files.keys))
    for name in names {
        let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
        #expect(MapAssets.files[name] == Array(bytes), "\(name) differs from what is embedded")
    }
}

private func connectTo(_ port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = UInt16(port).bigEndian
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard rc == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
    return fd
}

/// Reads until `marker` has arrived (5 s at most per read); what was read.
private func readUntil(_ fd: Int32, _ marker: String) throws -> String {
    var text = ""
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !text.contains(marker) {
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { throw POSIXError(.ETIMEDOUT) }
        text += String(decoding: buffer[0..<n], as: UTF8.self)
    }
    return text
}
