import Dispatch
import Foundation
import MQTT
import Options
import Synchronization
import Wire

let watchCommand = Command(
    name: "whereabouts watch",
    abstract: "print zone enter/exit events as they happen and a live room table",
    usage: ["whereabouts watch [--broker URL] [--prefix P] [--table-every S] [--for S]"],
    options: [
        .value("broker", "URL", help: "mqtt://host[:port] or mqtts://host[:port].", default: "mqtt://127.0.0.1:1883"),
        .value("prefix", "P", help: "Topic prefix.", default: "whereabouts"),
        .value("table-every", "S", help: "Seconds between room tables (0: never).", default: "10"),
        .value("for", "S", help: "Stop after this many seconds (default: until Ctrl-C)."),
    ])

/// `whereabouts watch`: zone events as they happen and a table of who is where, live.
func runWatch(_ arguments: [String]) -> Int32 {
    runTool(watchCommand, arguments: arguments) { args in
        let url = try args.require("broker")
        let broker: BrokerURL
        do throws(MQTTError) { broker = try BrokerURL(parsing: url) } catch {
            throw UsageError("--broker: \(error.message)")
        }
        let every = try args.double("table-every", in: 0...86_400) ?? 10
        let duration = try args.double("for", in: 0...31_536_000)
        let topics = Topics(prefix: args.string("prefix") ?? "whereabouts")
        let watcher = Watcher(topics: topics)
        let queue = DispatchQueue(label: "watch")
        let client = try MQTTClient(MQTTOptions(broker: broker, clientID: "whereabouts-watch-\(getpid())"), queue: queue) { event in
            watcher.handle(event)
        }
        for filter in ["\(topics.prefix)/zones/+/events", "\(topics.prefix)/devices/+/room", topics.aggregatorStatus] {
            try client.subscribe(filter, qos: .atLeastOnce)
        }
        try client.start()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        if every > 0 {
            timer.schedule(deadline: .now() + every, repeating: every)
            timer.setEventHandler { watcher.printTable() }
            timer.resume()
        }
        if let duration {
            Thread.sleep(forTimeInterval: duration)
        } else {
            TerminationSignal.wait()
        }
        timer.cancel()
        client.disconnect()
        queue.sync { watcher.printTable() }
        return ExitCode.success
    }
}

/// Keeps each device's room from the retained `room` topics and prints events.
private final class Watcher: Sendable {
    let topics: Topics
    private let rooms = Mutex<[String: (room: String, since: Date)]>([:])

    init(topics: Topics) { self.topics = topics }

    func handle(_ event: MQTTEvent) {
        switch event {
        case .connected: line("connected; waiting for events (Ctrl-C to stop)")
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
