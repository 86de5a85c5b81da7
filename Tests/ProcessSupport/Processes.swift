public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

// Processes and ports for tests that run the real parts: a free port, a child started with
// no signals blocked, a plain HTTP GET.

/// Starts `process` with no signals blocked.
///
/// Test code runs on threads that block SIGTERM and SIGINT, and a spawned child inherits
/// the spawning thread's mask: a broker started that way ignores SIGTERM until it is killed.
/// Foundation spawns on the calling thread, so clearing this thread's mask around `run()`
/// gives the child a clean one.
public func runUnmasked(_ process: Process) throws {
    var clear = sigset_t(), saved = sigset_t()
    sigemptyset(&clear)
    pthread_sigmask(SIG_SETMASK, &clear, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    try process.run()
}

/// A harness failure (a broker that did not start, a port not bound), with what went wrong.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A port nobody listens on right now: bind to port 0 and ask which one the kernel chose.
public func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard ok else { throw HarnessError("bind failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
public func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// A GET over plain HTTP; the status and body, or nil when nothing answers.
public func httpGet(_ url: String, token: String? = nil) async -> (status: Int, body: Data)? {
    guard let u = URL(string: url) else { return nil }
    var request = URLRequest(url: u, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 5)
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    guard let (body, response) = try? await URLSession.shared.data(for: request),
          let http = response as? HTTPURLResponse else { return nil }
    return (http.statusCode, body)
}
