import Dispatch
import Foundation
import MQTT

/// mosquitto with the shipped deploy/mosquitto/whereabouts.conf and acl, certificates from
/// deploy/make-certs.sh and passwords from deploy/make-passwords.sh, all in a temp directory.
/// The only changes to the shipped files: the port (a free one, on 127.0.0.1) and where the
/// files are.
final class TLSBroker {
    static let nodes = ["sw", "se", "ne", "nw"]
    static let aggregatorUser = "whereabouts-aggregator"

    let directory: URL
    let port: Int
    let daemon: Daemon
    let certificates: URL
    let passwords: URL
    var url: String { "mqtts://127.0.0.1:\(port)" }

    init() throws {
        directory = try opsDirectory("tls")
        certificates = directory.appendingPathComponent("certs")
        passwords = directory.appendingPathComponent("passwords")
        port = try freePort()
        let deploy = packageRoot.appendingPathComponent("deploy")
        let users = [Self.aggregatorUser] + Self.nodes
        for (script, arguments) in [("make-certs.sh", ["--dir", certificates.path, "--broker", "localhost,127.0.0.1"] + Self.nodes),
                                    ("make-passwords.sh", ["--dir", passwords.path] + users)] {
            let made = try runCommand(deploy.appendingPathComponent(script).path, arguments)
            guard made.status == 0 else { throw HarnessError("\(script): \(made)") }
        }
        // What an operator copies to /etc/mosquitto/whereabouts.
        let etc = directory.appendingPathComponent("etc")
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        for (from, name) in [(certificates, "ca.crt"), (certificates, "broker.crt"), (certificates, "broker.key"), (passwords, "passwd")] {
            try FileManager.default.copyItem(at: from.appendingPathComponent(name), to: etc.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(at: deploy.appendingPathComponent("mosquitto/acl"), to: etc.appendingPathComponent("acl"))
        // As root, mosquitto drops to its own user: it must read its files, as on a server.
        if getuid() == 0 { try runCommand("/bin/chown", ["-R", "mosquitto", directory.path]) }

        let shipped = try adapted(try repositoryText("deploy/mosquitto/whereabouts.conf"), [
            ("listener 8883", "listener \(port) 127.0.0.1"),
            ("/etc/mosquitto/whereabouts", etc.path),
        ], file: "deploy/mosquitto/whereabouts.conf")
        // Debian's /etc/mosquitto/mosquitto.conf sets these globals and includes conf.d.
        let config = """
            persistence false
            log_dest file \(directory.path)/mosquitto.log
            log_type all
            \(shipped)
            """
        let file = directory.appendingPathComponent("mosquitto.conf")
        try config.write(to: file, atomically: true, encoding: .utf8)
        daemon = try Daemon(URL(fileURLWithPath: "/usr/sbin/mosquitto"), ["-c", file.path],
                            log: directory.appendingPathComponent("stdout.log"))
        let deadline = Date().addingTimeInterval(10)
        while !canConnect(port: port) {
            guard daemon.process.isRunning, Date() < deadline else { throw HarnessError("mosquitto did not start: \(log)") }
            usleep(20_000)
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var log: String {
        daemon.log + ((try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? "")
    }

    func certificate(_ user: String) -> String { certificates.appendingPathComponent("\(user).crt").path }
    func key(_ user: String) -> String { certificates.appendingPathComponent("\(user).key").path }
    func passwordFile(_ user: String) -> String { passwords.appendingPathComponent("\(user).password").path }
    var ca: String { certificates.appendingPathComponent("ca.crt").path }

    /// Client options for `user` with its own certificate and password.
    func options(user: String, clientID: String) throws -> MQTTOptions {
        MQTTOptions(broker: try BrokerURL(parsing: url), clientID: clientID, username: user,
                    password: .file(passwordFile(user)),
                    tls: TLSOptions(caFile: ca, certFile: certificate(user), keyFile: key(user)),
                    keepalive: 5, reconnectDelay: 1...2)
    }

    /// `mosquitto_pub` once with these connection arguments; its exit status and output.
    func publishWithCLI(_ arguments: [String], topic: String = "whereabouts/nodes/sw/status") throws -> CommandResult {
        try runCommand("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(port), "-t", topic, "-m", "probe", "-q", "1"] + arguments,
                       timeout: 20)
    }
}

/// An MQTT client over TLS keeping what it receives, like `Collector` for the plain broker.
final class TLSClient: Sendable {
    let client: MQTTClient
    private let received = Shared<[MQTTMessage]>([])

    init(_ options: MQTTOptions, filters: [String]) throws {
        let received = self.received
        client = try MQTTClient(options, queue: DispatchQueue(label: "tls-client")) { event in
            if case .message(let m) = event { received.update { $0.append(m) } }
        }
        for f in filters { try client.subscribe(f, qos: .atLeastOnce) }
        try client.start()
    }

    var messages: [MQTTMessage] { received.current }

    /// Waits until the subscriptions are live: the broker handles a client's packets in order,
    /// so hearing our own publish on `probe` (subscribed last, and writable under the ACL)
    /// means every filter before it is in place.
    func ready(probe: String, timeout: Double = 10) async -> Bool {
        try? client.subscribe(probe, qos: .atLeastOnce)
        return await poll(timeout: timeout) {
            if self.client.connection == .connected { _ = try? self.client.publish(probe, [1]) }
            return !self.messages(on: probe).isEmpty
        }
    }
    func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }
    func connected(timeout: Double = 10) async -> Bool { await poll(timeout: timeout) { self.client.connection == .connected } }
}
