import Dispatch
import Foundation
import MQTT
import Options
import Synchronization
import Wire

struct WatchOptions {
    static let tableEvery = Opt<Double>.number("table-every", "S", help: "Seconds between room tables (0: never).",
                                               in: 0...86_400, default: 10)
    static let duration = Opt<Double?>.number("for", "S", help: "Stop after this many seconds (default: until Ctrl-C).",
                                              in: 0...31_536_000)
    static let table = BrokerSettings.options + [BrokerSettings.prefixSetting.option, tableEvery.option, duration.option]
    let tableEvery: Double, duration: Double?
    init(_ a: Arguments) throws(UsageError) { tableEvery = try a.get(Self.tableEvery); duration = try a.get(Self.duration) }
}

let watchCommand = Command(
    name: "whereabouts watch",
    abstract: "print zone enter/exit events as they happen and a live room table",
    options: WatchOptions.table,
    discussion: """
        The broker options are the edge's: a production broker (mqtts:// on 8883, a client certificate
        and a user) takes --tls-ca, --tls-cert, --tls-key and --username with --password-file or
        --password-env; a password never goes on the command line. Any user allowed to read
        <prefix>/zones/#, <prefix>/devices/# and <prefix>/aggregator/# will do (deploy/mosquitto/acl).
        Exits 0 after --for or Ctrl-C, 1 when it never connected (the broker refused it, a TLS failure)
        or a named file cannot be read, 64 on a usage error.
        """)

/// `whereabouts watch`: zone events as they happen and a table of who is where, live.
func runWatch(_ arguments: [String]) -> Int32 {
    runTool(watchCommand, arguments: arguments) { args in
        let (settings, options) = try watchOptions(args)
        let o = try WatchOptions(args)
        let (every, duration) = (o.tableEvery, o.duration)
        let topics = Topics(prefix: settings.prefix)
        let watcher = Watcher(topics: topics)
        let queue = DispatchQueue(label: "watch")
        let client = try MQTTClient(options, queue: queue) { event in
            watcher.handle(event)
        }
        for filter in ["\(topics.prefix)/zones/+/events", "\(topics.prefix)/devices/+/room", topics.aggregatorStatus] {
            try client.subscribe(filter, qos: .atLeastOnce)
        }
        try client.start()
        watch(watcher, on: queue, tableEvery: every, for: duration)
        client.disconnect()
        queue.sync { watcher.printTable() }
        // A watch that never reached the broker watched nothing: a failure, for scripts.
        guard watcher.hasConnected else {
            printError("whereabouts watch: never connected to \(options.broker)")
            return ExitCode.failure
        }
        return ExitCode.success
    }
}

/// The broker options of the command line, checked as the edge checks them. Every named file
/// is read now, so a missing CA or password fails here with its path (exit 1), before
/// anything connects.
private func watchOptions(_ args: Arguments) throws -> (BrokerSettings, MQTTOptions) {
    let settings = try BrokerSettings { key in args.string(BrokerSettings.flag(forKey: key)) }
    let problems = settings.unreadableFiles()
    guard problems.isEmpty else { throw ReadFailure(problems.joined(separator: "\n")) }
    let options: MQTTOptions
    do throws(MQTTError) {
        options = try MQTTOptions(settings, clientID: "whereabouts-watch-\(getpid())")
    } catch {
        throw UsageError(error.message)
    }
    _ = try options.password?.resolve()
    return (settings, options)
}

/// Prints a table every `every` seconds (0: never) until `duration` has passed or a
/// termination signal arrives.
private func watch(_ watcher: Watcher, on queue: DispatchQueue, tableEvery every: Double, for duration: Double?) {
    // Only a resumed timer may be released: libdispatch traps on a suspended one (with
    // --table-every 0 watch crashed at its end).
    var timer: DispatchSourceTimer?
    if every > 0 {
        let t = DispatchSource.makeTimerSource(queue: queue)
        t.schedule(deadline: .now() + every, repeating: every)
        t.setEventHandler { watcher.printTable() }
        t.resume()
        timer = t
    }
    if let duration {
        Thread.sleep(forTimeInterval: duration)
    } else {
        TerminationSignal.wait()
    }
    timer?.cancel()
}

/// Keeps each device's room from the retained `room` topics and prints events.
private final class Watcher: Sendable {
    let topics: Topics
    private let rooms = Mutex<[String: (room: String, since: Date)]>([:])
    private let connected = Atomic<Bool>(false)

    /// Whether the broker ever accepted the connection.
    var hasConnected: Bool { connected.load(ordering: .relaxed) }

    init(topics: Topics) { self.topics = topics }

    func handle(_ event: MQTTEvent) {
        switch event {
        case .connected:
            connected.store(true, ordering: .relaxed)
            line("connected; waiting for events (Ctrl-C to stop)")
        case .refused(_, let reason): line("broker refused the connection: \(reason)")
        case .disconnected(let code, let reason) where code != 0: line("disconnected: \(reason); reconnecting")
        case .message(let m): message(m)
        default: break
        }
    }

    private func message(_ m: MQTTMessage) {
        let text = String(decoding: m.payload, as: UTF8.self)
        let levels = m.topic.split(separator: "/").map(String.init)
        if m.topic == topics.aggregatorStatus {
            line("aggregator \(text)")
        } else if levels.count >= 2, levels[levels.count - 1] == "room", let id = Topics.unescape(levels[levels.count - 2]) {
            rooms.withLock { $0[id] = (text, Date()) }
        } else if levels.last == "events",
                  let json = try? JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any] {
            let type = json["type"] as? String ?? "?"
            let zone = json["zone"] as? String ?? "?"
            let device = json["device"] as? String ?? "?"
            var detail = ""
            if let c = json["confidence"] as? Double { detail += String(format: "  confidence %.2f", c) }
            if let d = json["dwell"] as? Double { detail += String(format: "  after %.0f s", d) }
            line("\(type.padding(toLength: 5, withPad: " ", startingAt: 0))  \(zone.padding(toLength: 12, withPad: " ", startingAt: 0))  \(device)\(detail)")
        }
    }

    func printTable() {
        let snapshot = rooms.withLock { $0 }.sorted { $0.key < $1.key }
        guard !snapshot.isEmpty else { return }
        var out = "── who is where ─────────────────────────────\n"
        for (id, entry) in snapshot {
            out += "  \(entry.room.padding(toLength: 12, withPad: " ", startingAt: 0))  \(id)\n"
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }

    private func line(_ s: String) {
        let time = Date().formatted(.dateTime.hour(.twoDigits(amPM: .omitted)).minute(.twoDigits).second(.twoDigits))
        FileHandle.standardOutput.write(Data("\(time)  \(s)\n".utf8))
    }
}
