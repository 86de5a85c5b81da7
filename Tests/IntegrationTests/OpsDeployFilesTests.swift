import Foundation
import Storage
import Testing
import Wire
import YAML

private let deploy = packageRoot.appendingPathComponent("deploy")

@Test(.enabled(if: prometheusInstalled, "needs promtool from Debian's prometheus package; apt-get install prometheus failed here"))
func theAlertRulesAreValidAndFireWhenTheyShould() throws {
    let check = try runCommand("/usr/bin/promtool", ["check", "rules", "prometheus-rules.yml"], in: deploy)
    #expect(check.status == 0 && check.output.contains("SUCCESS"), "\(check)")
    // The unit tests feed series (a node going offline, storage failing, slow processing, ...)
    // and name the alerts expected at each time, and those expected not to fire.
    let unit = try runCommand("/usr/bin/promtool", ["test", "rules", "prometheus-rules.test.yml"], in: deploy)
    #expect(unit.status == 0 && unit.output.contains("SUCCESS"), "\(unit)")
}

@Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "needs systemd-analyze"))
func theAggregatorUnitVerifiesWithoutWarnings() throws {
    let dir = try opsDirectory("unit")
    defer { try? FileManager.default.removeItem(at: dir) }
    // verify wants the executable to exist: point it at the built one, change nothing else.
    let unit = try adapted(try repositoryText("deploy/whereabouts-aggregator.service"),
                           [("/usr/local/bin/whereabouts-aggregator", executable("whereabouts-aggregator").path)],
                           file: "deploy/whereabouts-aggregator.service")
    let file = dir.appendingPathComponent("whereabouts-aggregator.service")
    try unit.write(to: file, atomically: true, encoding: .utf8)
    let verify = try runCommand("/usr/bin/systemd-analyze", ["verify", file.path])
    // An unknown or misspelt directive is only a warning to systemd, so silence is the bar.
    #expect(verify.status == 0 && verify.output.isEmpty && verify.errors.isEmpty, "\(verify)")
    for hardening in ["NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
                      "StateDirectory=whereabouts", "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "User=whereabouts"] {
        #expect(unit.contains("\n\(hardening)\n"), "the unit lost \(hardening)")
    }
}

@Test func theExampleAggregatorConfigUsesOnlyRealOptions() throws {
    let help = try runCommand(executable("whereabouts-aggregator").path, ["--help"])
    let config = try YAML.parse(contentsOf: deploy.appendingPathComponent("aggregator.example.yaml").path)
    let keys = try #require(config.entries).map(\.key)
    #expect(!keys.isEmpty)
    for key in keys {
        #expect(help.output.contains("--\(key) "), "aggregator.example.yaml: \(key) is not an option of whereabouts-aggregator")
    }
}

@Test func theShellScriptsParse() throws {
    for script in ["make-certs.sh", "make-passwords.sh", "backup-database.sh"] {
        let syntax = try runCommand("/bin/bash", ["-n", deploy.appendingPathComponent(script).path])
        #expect(syntax.status == 0, "\(script): \(syntax)")
        #expect(FileManager.default.isExecutableFile(atPath: deploy.appendingPathComponent(script).path), "\(script) is not executable")
    }
}

@Test func makeCertsSignsEveryNodeWithOneCAAndKeepsWhatExists() throws {
    let dir = try opsDirectory("certs")
    defer { try? FileManager.default.removeItem(at: dir) }
    let script = deploy.appendingPathComponent("make-certs.sh").path
    let first = try runCommand(script, ["--dir", dir.path, "--broker", "mqtt.example.lan,192.0.2.10", "kitchen", "hall"])
    #expect(first.status == 0, "\(first)")
    let kitchen = try Data(contentsOf: dir.appendingPathComponent("kitchen.crt"))
    let again = try runCommand(script, ["--dir", dir.path, "--broker", "mqtt.example.lan", "kitchen", "attic"])
    #expect(again.status == 0 && again.output.contains("kept"), "\(again)")
    #expect(try Data(contentsOf: dir.appendingPathComponent("kitchen.crt")) == kitchen, "a second run must not reissue")
    let names = ["broker", "whereabouts-aggregator", "kitchen", "hall", "attic"].map { dir.appendingPathComponent("\($0).crt").path }
    let verify = try runCommand("/usr/bin/openssl", ["verify", "-CAfile", dir.appendingPathComponent("ca.crt").path] + names)
    #expect(verify.status == 0, "\(verify)")
    let broker = try runCommand("/usr/bin/openssl", ["x509", "-in", names[0], "-noout", "-ext", "subjectAltName,extendedKeyUsage"])
    #expect(broker.output.contains("DNS:mqtt.example.lan") && broker.output.contains("IP Address:192.0.2.10")
            && broker.output.contains("Server Authentication"), "\(broker)")
    let node = try runCommand("/usr/bin/openssl", ["x509", "-in", names[2], "-noout", "-subject", "-ext", "extendedKeyUsage"])
    #expect(node.output.contains("CN = kitchen") && node.output.contains("Client Authentication"), "\(node)")
    let bad = try runCommand(script, ["--dir", dir.path, "--broker", "x", "kitchen/#"])
    #expect(bad.status == 64, "a node name with a wildcard must be refused: \(bad)")
}

@Test func theComposeFileMountsFilesThatExist() throws {
    let compose = try YAML.parse(contentsOf: deploy.appendingPathComponent("compose.yaml").path)
    let services = try #require(compose["services"]?.entries)
    #expect(services.map(\.key) == ["mosquitto", "aggregator", "prometheus", "grafana"])
    for service in services {
        #expect(service.value["network_mode"]?.text == "host", "\(service.key): the shipped files assume the host's network")
        for volume in service.value["volumes"]?.items ?? [] {
            guard let source = volume.text?.split(separator: ":").first, source.hasPrefix(".") else { continue }
            let path = deploy.appendingPathComponent(String(source)).standardizedFileURL.path
            #expect(FileManager.default.fileExists(atPath: path), "\(service.key) mounts \(source), which is not in the repository")
        }
    }
    let build = try #require(compose["services"]?["aggregator"]?["build"])
    #expect(FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent(build["dockerfile"]?.text ?? "?").path))
    let manifest = try repositoryText("Package.swift")
    for dockerfile in ["Dockerfile.aggregator", "Dockerfile.edge"] {
        let text = try repositoryText("deploy/\(dockerfile)")
        let product = try #require(text.firstRange(of: "--product ").map { text[$0.upperBound...].prefix { !$0.isWhitespace } })
        #expect(manifest.contains(".executable(name: \"\(product)\""), "\(dockerfile) builds \(product), not a product")
    }
}

@Test func theBackupScriptCopiesALiveDatabaseWithWhatIsStillInItsWAL() throws {
    let dir = try opsDirectory("backup")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("whereabouts.db").path
    // A writer holding the file open, its last commits still in the WAL, as the aggregator does.
    try Schema.prepare(path: path)
    let writer = try Connection(path: path)
    try writer.execute("PRAGMA wal_autocheckpoint = 0")
    try writer.execute("INSERT INTO devices (id, first_seen, last_seen) VALUES ('mac:aa:bb:cc:dd:ee:ff', 1, 2), ('iBeacon:x-1-2', 3, 4)")
    #expect(FileManager.default.fileExists(atPath: path + "-wal"))

    let backups = dir.appendingPathComponent("backups")
    let run = try runCommand(deploy.appendingPathComponent("backup-database.sh").path, [path, backups.path, "14"])
    #expect(run.status == 0, "\(run)")
    let copies = try FileManager.default.contentsOfDirectory(atPath: backups.path)
    #expect(copies.count == 1 && copies[0].hasPrefix("whereabouts-") && copies[0].hasSuffix(".db"), "\(copies)")
    let copy = try Connection(path: backups.appendingPathComponent(copies[0]).path, mode: .readOnly)
    #expect(try copy.integer("SELECT COUNT(*) FROM devices") == 2)
    #expect(try copy.text("PRAGMA integrity_check") == "ok")

    let missing = try runCommand(deploy.appendingPathComponent("backup-database.sh").path, [dir.appendingPathComponent("none.db").path, backups.path])
    #expect(missing.status == 66, "\(missing)")
}

@Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "needs systemd-analyze"))
func theBackupUnitAndTimerVerify() throws {
    let dir = try opsDirectory("backup-unit")
    defer { try? FileManager.default.removeItem(at: dir) }
    let service = try adapted(try repositoryText("deploy/whereabouts-backup.service"),
                              [("/usr/local/lib/whereabouts/backup-database.sh", deploy.appendingPathComponent("backup-database.sh").path)],
                              file: "deploy/whereabouts-backup.service")
    try service.write(to: dir.appendingPathComponent("whereabouts-backup.service"), atomically: true, encoding: .utf8)
    try FileManager.default.copyItem(at: deploy.appendingPathComponent("whereabouts-backup.timer"),
                                     to: dir.appendingPathComponent("whereabouts-backup.timer"))
    let verify = try runCommand("/usr/bin/systemd-analyze", ["verify", dir.appendingPathComponent("whereabouts-backup.timer").path,
                                                             dir.appendingPathComponent("whereabouts-backup.service").path])
    #expect(verify.status == 0 && verify.output.isEmpty && verify.errors.isEmpty, "\(verify)")
}
