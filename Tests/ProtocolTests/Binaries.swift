import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The built products (beside this test bundle, or in `$WHEREABOUTS_BIN` as `make test` sets),
/// run as a user runs them.
enum Binaries {
    static let directory: String = {
        if let dir = ProcessInfo.processInfo.environment["WHEREABOUTS_BIN"], !dir.isEmpty { return dir }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while dir.path.contains(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.path
    }()

    static func path(_ name: String) throws -> String {
        let path = directory + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw DocError("\(path) is not built (swift build, or set WHEREABOUTS_BIN)")
        }
        return path
    }

    /// `binary [command] --help`, which must exit 0.
    static func help(_ binary: String, _ command: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path(binary))
        process.arguments = command + ["--help"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw DocError("\(binary) \(command) --help exited \(process.terminationStatus): \(text)") }
        return text
    }

    /// Whether a help text names `flag` as a flag (not as the start of a longer one).
    static func mentions(_ help: String, _ flag: String) -> Bool {
        var rest = Substring(help)
        while let range = rest.range(of: flag) {
            let after = rest[range.upperBound...].first
            if after.map({ !$0.isLetter && !$0.isNumber && $0 != "-" }) ?? true { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }
}

/// A free TCP port on 127.0.0.1.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw DocError("socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard ok else { throw DocError("bind failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A GET over plain HTTP: the status and body, or nil when nothing answers.
func httpGet(_ url: String) async -> (status: Int, body: String)? {
    guard let u = URL(string: url) else { return nil }
    let request = URLRequest(url: u, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 5)
    guard let (body, response) = try? await URLSession.shared.data(for: request), let http = response as? HTTPURLResponse else { return nil }
    return (http.statusCode, String(decoding: body, as: UTF8.self))
}

/// Starts `process` with no signals blocked: test threads block SIGTERM and SIGINT, a child
/// inherits the spawning thread's mask, and a child started so would ignore `terminate()`.
func runUnmasked(_ process: Process) throws {
    var clear = sigset_t(), saved = sigset_t()
    sigemptyset(&clear)
    pthread_sigmask(SIG_SETMASK, &clear, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    try process.run()
}
