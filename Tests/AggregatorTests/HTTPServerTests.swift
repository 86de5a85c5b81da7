import Foundation
import Testing
import HTTP

/// A plain HTTP/1.0 GET over a socket, so the test needs nothing but the server under test.
func httpGet(port: Int, path: String, headers: [String] = []) throws -> (status: Int, body: String) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #expect(fd >= 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = UInt16(port).bigEndian
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard rc == 0 else { throw POSIXError(.ECONNREFUSED) }
    let request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        data += buffer[0..<n]
    }
    let text = String(decoding: data, as: UTF8.self)
    let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
    let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    return (status, body)
}

@Test func servesGetsAndRequiresTheToken() throws {
    let server = try HTTPServer(address: "127.0.0.1:0", token: "s3cret") { request in
        request.path == "/metrics" ? HTTPResponse(text: "up 1\n") : HTTPResponse(status: 404, text: "no\n")
    }
    #expect(server.port > 0)
    #expect(try httpGet(port: server.port, path: "/metrics").status == 401)
    let ok = try httpGet(port: server.port, path: "/metrics", headers: ["Authorization: Bearer s3cret"])
    #expect(ok.status == 200 && ok.body == "up 1\n")
    #expect(try httpGet(port: server.port, path: "/x", headers: ["Authorization: Bearer s3cret"]).status == 404)
}

@Test func refusesABadAddress() {
    #expect(throws: HTTPError.self) { try HTTPServer(address: "nowhere", handler: { _ in HTTPResponse(text: "") }) }
    #expect(throws: HTTPError.self) { try HTTPServer(address: "10.0.0.300:80", handler: { _ in HTTPResponse(text: "") }) }
}
