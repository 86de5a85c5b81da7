import Foundation
import MQTT
import Testing
import Wire
import SiteModel
@testable import Aggregator

// The start-up audit (docs/security.md): secrets others can read, HTTP exposed without a token.

private func settings(site: Site, http: String?, token: String? = nil) -> AggregatorSettings {
    // The audit reads the site's files, not the MQTT options (the key-only TLS section here is
    // one the broker settings' checks refuse).
    var s = AggregatorSettings(site: site, mqtt: MQTTOptions(broker: BrokerURL(host: "localhost"), clientID: "test"),
                               database: nil, http: http)
    s.httpToken = token
    return s
}

private func file(_ name: String, mode: Int) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(getpid())-\(name)")
    try "secret\n".write(to: url, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    return url.path
}

/// The documented install (docs/operations.md#the-aggregator: root-owned, the service's group, mode 0640) draws
/// no warning; bits for every user or a group that may write do, each named with its mode.
@Test func secretsEveryUserCanReachAreNamedAndGroupReadableOnesAreNot() throws {
    var site = Site()
    site.mqtt.passwordFile = try file("password", mode: 0o640)
    site.mqtt.tls = TLSSettings(ca: nil, cert: nil, key: try file("key", mode: 0o600))
    var s = settings(site: site, http: "127.0.0.1:9464")
    s.sitePath = try file("site", mode: 0o644)
    s.httpTokenFile = try file("token", mode: 0o660)
    let warnings = StartupAudit.warnings(s)
    #expect(warnings.count == 2, "\(warnings)")
    #expect(warnings.contains { $0.hasPrefix("site file \(s.sitePath!) is open to every user (mode 644); chmod o-rwx it") })
    #expect(warnings.contains { $0.hasPrefix("HTTP token file \(s.httpTokenFile!) is writable by its group (mode 660); chmod g-w it") })
    #expect(!warnings.contains { $0.contains("TLS key") || $0.contains("MQTT password file") })
}

@Test(arguments: [(0o600, false), (0o640, false), (0o440, false), (0o604, true), (0o602, true), (0o660, true), (0o701, true)])
func permissionRule(mode: UInt32, warns: Bool) {
    #expect((StartupAudit.exposure(mode, groupIsOurs: true) != nil) == warns)
}

/// Review of edgecli: 0640 was accepted with any group, though the text says "with the
/// service's group": another group's members could read the secret.
@Test(arguments: [(0o640, true), (0o440, true), (0o600, false), (0o400, false)])
func groupReadableIsFineOnlyForTheServicesGroup(mode: UInt32, warns: Bool) {
    #expect((StartupAudit.exposure(mode, groupIsOurs: false) != nil) == warns)
    #expect(StartupAudit.exposure(mode, groupIsOurs: false)?.contains("a group other than the service's") ?? true)
}

/// The same on a real file given another group (needs the right to chgrp it: root here).
@Test func aSecretOfAnotherGroupIsNamed() throws {
    var site = Site()
    let path = try file("other-group", mode: 0o640)
    defer { unlink(path) }
    try #require(chown(path, UInt32.max, getegid() == 1 ? 2 : 1) == 0, "chgrp needs root or membership of the group")
    site.mqtt.passwordFile = path
    let warnings = StartupAudit.warnings(settings(site: site, http: nil))
    #expect(warnings == ["MQTT password file \(path) is readable by a group other than the service's (mode 640); "
                         + "chgrp it to the service's group or chmod g-r it (0600, or 0640 with the service's group, is fine)"])
}

@Test(arguments: [("0.0.0.0:9464", nil, true), ("192.168.1.2:9464", "t0ken", false), ("127.0.0.1:9464", nil, false),
                  ("localhost:80", nil, false)] as [(String, String?, Bool)])
func httpBeyondThisHostWithoutATokenWarns(address: String, token: String?, warns: Bool) {
    let warnings = StartupAudit.warnings(settings(site: Site(), http: address, token: token))
    #expect(warnings.contains { $0.hasPrefix("HTTP on \(address)") } == warns, "\(warnings)")
}
