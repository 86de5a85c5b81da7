import Foundation
import Testing

// Review of edgecli, 2026-11-30: TLS files on an mqtt:// broker were silently ignored (the
// password in clear) and --check-config said OK even with a CA file that does not exist,
// which failed only at connect, as "Invalid function arguments provided." with no path;
// `watch` exited 0 when it never connected and `decode` exited 0 after a read error.

@Test(.timeLimit(.minutes(1)), arguments: [[String](), ["watch"]])
func aMissingCAFileIsNamedBeforeAnythingConnects(watch: [String]) async throws {
    let tool = watch.isEmpty ? "whereabouts-edge" : "whereabouts"
    let edgeOnly = watch.isEmpty ? ["--node", "n", "--stdin", "--check-config"] : ["--for", "1"]
    let run = try EdgeProcess(watch + ["--broker", "mqtts://127.0.0.1:1", "--tls-ca", "/nonexistent/ca.crt"] + edgeOnly, tool: tool)
    #expect(await run.exitStatus() == 1, "\(run.stdout)\(run.stderr)")
    #expect(run.stderr.contains("tls.ca: cannot read /nonexistent/ca.crt: No such file or directory"), "\(run.stderr)")
    #expect(!run.stdout.contains("OK"), "\(run.stdout)")
}

@Test(.timeLimit(.minutes(1)), arguments: [[String](), ["watch"]])
func tlsFilesOnAPlaintextBrokerAreAUsageError(watch: [String]) async throws {
    let tool = watch.isEmpty ? "whereabouts-edge" : "whereabouts"
    let edgeOnly = watch.isEmpty ? ["--node", "n", "--stdin", "--check-config"] : ["--for", "1"]
    let run = try EdgeProcess(watch + ["--broker", "mqtt://127.0.0.1:1", "--tls-ca", "/etc/hostname"] + edgeOnly, tool: tool)
    #expect(await run.exitStatus() == 64, "\(run.stdout)\(run.stderr)")
    #expect(run.stderr.contains("only for an mqtts:// broker, not mqtt://127.0.0.1:1"), "\(run.stderr)")
}

@Test(.timeLimit(.minutes(1)))
func decodeExitsOneWhenStandardInputCannotBeRead() async throws {
    let p = Process()
    p.executableURL = executable("whereabouts")
    p.arguments = ["decode"]
    // A directory opens but every read(2) fails with EISDIR.
    p.standardInput = try #require(FileHandle(forReadingAtPath: "/tmp"))
    let errors = Pipe()
    p.standardOutput = FileHandle.nullDevice
    p.standardError = errors
    try runUnmasked(p)
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    #expect(p.terminationStatus == 1, "\(text)")
    #expect(text.contains("reading standard input failed: Is a directory"), "\(text)")
}
