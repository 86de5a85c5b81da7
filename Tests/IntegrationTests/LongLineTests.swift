import Foundation
import MQTT
import Testing

// Audit, 2026-11-30: a line without a newline on standard input grew the edge to 5 GB and
// `decode` and `locate` to gigabytes, and none of them ended at the end of input. Each now
// reads lines of bounded length: a longer line is skipped to its newline and counted.

/// `count` bytes of `a` with no newline: a producer gone wrong.
private func endlessLine(_ count: Int) -> Data { Data(repeating: UInt8(ascii: "a"), count: count) }

/// Feeds `mebibytes` MiB of one line, a MiB at a time, checking the process stays up.
private func feedLongLine(_ process: EdgeProcess, mebibytes: Int) {
    let chunk = endlessLine(1 << 20)
    for _ in 0..<mebibytes { process.write(chunk) }
}

@Suite("lines longer than any input line", .serialized)
struct LongLineTests {
    @Test(.timeLimit(.minutes(2)))
    func edgeSkipsAnEndlessLineAndPublishesTheLinesAfterIt() async throws {
        let packets = try goldenPackets().prefix(12)
        let broker = try Broker()
        let topics = NodeTopics(node: "desk")
        let collector = try Collector(broker: broker, filters: [topics.all])
        try await collector.ready()
        let edge = try EdgeProcess(["--node", "desk", "--broker", broker.url, "--stdin", "--qos", "1"])
        feedLongLine(edge, mebibytes: 64)
        #expect(edge.process.isRunning, "\(edge.stderr)")
        edge.write("\n" + packets.map { $0 + "\n" }.joined())
        edge.closeInput()
        #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
        #expect(await collector.wait { text($0, topic: topics.status).last == "offline" })
        let readings = try deliveredBatches(collector.messages, topic: topics.readings).batches.flatMap(\.readings)
        let wanted = try goldenReadings().prefix { $0.t <= 1612150087.41 }
        #expect(readings.map(\.id) == wanted.map(\.id))
        let last = try #require(telemetry(collector.messages, topic: topics.telemetry).last)
        #expect(last["malformed"] as? Int == 1)
        #expect(last["adverts"] as? Int == 12)
        #expect(edge.stderr.contains("skipped a line of \(64 << 20) bytes on stdin"), "\(edge.stderr)")
    }

    /// A resource bound, not a timing: the edge's peak resident memory (VmHWM, the kernel's
    /// own high-water mark) after a 300 MiB line stays far below the line, as its reader
    /// holds at most one line limit (64 KiB) of it.
    @Test(.timeLimit(.minutes(3)))
    func edgeMemoryStaysBoundedOnAHugeLine() async throws {
        let edge = try EdgeProcess(["--node", "desk", "--broker", "mqtt://127.0.0.1:1", "--stdin"])
        feedLongLine(edge, mebibytes: 300)
        edge.write("\n")
        // Every write but the pipe's last 64 KiB has been read by now: the peak is reached.
        let status = try String(contentsOfFile: "/proc/\(edge.process.processIdentifier)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kibibytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        #expect(kibibytes < 100 * 1024, "\(line)")
        edge.closeInput()
        #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
        #expect(edge.stderr.contains("skipped a line of \(300 << 20) bytes on stdin"), "\(edge.stderr)")
    }

    @Test(.timeLimit(.minutes(2)))
    func decodeReportsTheLongLineAndDecodesTheNext() async throws {
        let packet = try #require(try goldenPackets().first)
        let decode = try EdgeProcess(["decode"], tool: "whereabouts")
        feedLongLine(decode, mebibytes: 16)
        #expect(decode.process.isRunning, "\(decode.stderr)")
        decode.write("\n\(packet)\n")
        decode.closeInput()
        #expect(await decode.exitStatus() == 0, "\(decode.stderr)")
        let lines = decode.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(decode.stdout.prefix(2000))")
        #expect(lines.first?.contains(#""error":"line of \#(16 << 20) bytes is longer than 65536, skipped""#) == true)
        #expect(lines.first?.contains(#""line":1"#) == true)
        #expect(lines.last?.contains(#""line":2"#) == true && lines.last?.contains(#""kind":"#) == true)
    }

    @Test(.timeLimit(.minutes(2)))
    func locateCountsTheLongLineAsBadAndUsesTheRest() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("longline-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let sitePath = dir.appendingPathComponent("site.yaml")
        try """
            floors:
              - id: f
                bounds: [[0, 0, 0], [10, 10, 3]]
                rooms:
                  - { id: r, points: [[0, 0], [10, 0], [10, 10], [0, 10]] }
            nodes:
              - { name: a, point: [0, 0, 1] }
              - { name: b, point: [10, 0, 1] }
            """.write(to: sitePath, atomically: true, encoding: .utf8)
        let locate = try EdgeProcess(["locate", "--site", sitePath.path, "--input", "-"], tool: "whereabouts")
        feedLongLine(locate, mebibytes: 40)
        #expect(locate.process.isRunning, "\(locate.stderr)")
        let t = 1_764_410_000.0
        locate.write("\n" + (0..<8).map { i in
            #"{"v":1,"node":"\#(i % 2 == 0 ? "a" : "b")","seq":\#(i + 1),"t":\#(t + Double(i)),"readings":[{"id":"mac:aa:bb:cc:dd:ee:ff","rssi":-60,"t":\#(t + Double(i)),"kind":"mac"}]}"#
        }.joined(separator: "\n") + "\n")
        locate.closeInput()
        #expect(await locate.exitStatus() == 0, "\(locate.stderr)")
        #expect(locate.stderr.contains("line 1: longer than \(16 << 20) bytes, skipped"), "\(locate.stderr)")
        #expect(locate.stderr.contains("8 readings used") && locate.stderr.contains("1 bad lines"), "\(locate.stderr)")
    }
}
