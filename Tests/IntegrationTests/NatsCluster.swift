import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A three-node NATS cluster on loopback ports, each node with JetStream (which MQTT needs:
/// sessions, retained messages and QoS 1 messages are JetStream streams, replicated on all three)
/// and an MQTT listener. A node can be killed (`SIGKILL`) and started again on its ports.
/// Debian's `nats-server` is installed with apt-get when missing; anything that cannot be set up
/// throws `HarnessError`, so the test fails rather than skips.
final class NatsCluster: @unchecked Sendable {
    struct Node {
        let name: String
        let client: Int, route: Int, mqtt: Int
    }
    let nodes: [Node]
    let directory: URL
    private var processes: [Process?]

    init(size: Int = 3) throws {
        try Self.ensureInstalled()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("whereabouts-nats-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var nodes: [Node] = []
        for i in 1...size { nodes.append(Node(name: "n\(i)", client: try freePort(), route: try freePort(), mqtt: try freePort())) }
        self.nodes = nodes
        processes = Array(repeating: nil, count: size)
        let routes = nodes.map { "nats-route://127.0.0.1:\($0.route)" }.joined(separator: ", ")
        for node in nodes {
            // server_name is required for JetStream in a cluster; the MQTT streams get one replica
            // per node (at most 3) by default.
            let config = """
                server_name: \(node.name)
                listen: 127.0.0.1:\(node.client)
                jetstream { store_dir: "\(directory.path)/\(node.name)" }
                cluster { name: whereabouts, listen: 127.0.0.1:\(node.route), routes: [\(routes)] }
                mqtt { listen: 127.0.0.1:\(node.mqtt) }
                """
            try config.write(to: configFile(node), atomically: true, encoding: .utf8)
        }
        for i in nodes.indices { try start(i, waitForMQTT: false) }
        try waitForMQTT(nodes.indices)
    }

    deinit {
        for p in processes { if let p, p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        try? FileManager.default.removeItem(at: directory)
    }

    func configFile(_ node: Node) -> URL { directory.appendingPathComponent("\(node.name).conf") }
    func logFile(_ i: Int) -> URL { directory.appendingPathComponent("\(nodes[i].name).log") }
    func log(_ i: Int) -> String { (try? String(contentsOf: logFile(i), encoding: .utf8)) ?? "" }

    /// Every node's MQTT URL, the list edges and aggregators take.
    var brokerList: String { nodes.map { "mqtt://127.0.0.1:\($0.mqtt)" }.joined(separator: ",") }
    func url(_ i: Int) -> String { "mqtt://127.0.0.1:\(nodes[i].mqtt)" }

    func start(_ i: Int, waitForMQTT wait: Bool = true) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = ["-c", configFile(nodes[i]).path, "-l", logFile(i).path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try runUnmasked(p)
        processes[i] = p
        if wait { try waitForMQTT([i]) }
    }

    /// A node's crash: its clients are cut off, its wills are not sent (they lived in it).
    func kill9(_ i: Int) {
        guard let p = processes[i], p.isRunning else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    private func waitForMQTT<C: Collection>(_ indices: C) throws where C.Element == Int {
        let deadline = Date().addingTimeInterval(30)
        for i in indices {
            while !canConnect(port: nodes[i].mqtt) {
                guard processes[i]?.isRunning == true, Date() < deadline else {
                    throw HarnessError("nats-server \(nodes[i].name) did not open MQTT on \(nodes[i].mqtt): \(log(i))")
                }
                usleep(50_000)
            }
        }
    }

    /// Debian installs it in /usr/sbin.
    static let binary = "/usr/sbin/nats-server"

    static func ensureInstalled() throws {
        if FileManager.default.isExecutableFile(atPath: binary) { return }
        _ = try? PostgresCluster.run("/usr/bin/apt-get", ["install", "-y", "--no-install-recommends", "nats-server"], timeout: 600)
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw HarnessError("nats-server is not installed and `apt-get install nats-server` did not install it")
        }
    }
}
