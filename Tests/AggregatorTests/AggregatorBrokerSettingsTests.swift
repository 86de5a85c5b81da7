import MQTT
import Options
import Testing
import SiteModel
@testable import Aggregator

// The aggregator's broker settings come from the site's `mqtt` section through the same
// `BrokerSettings` and checks as the edge's and `whereabouts watch`'s.

@Test func theSitesMQTTSectionBecomesBrokerSettings() throws {
    var site = Site()
    site.mqtt.host = "broker.lan"; site.mqtt.port = 8883; site.mqtt.username = "agg"
    site.mqtt.tls = TLSSettings(ca: "/etc/ca.crt", cert: "/etc/agg.crt", key: "/etc/agg.key")
    site.mqtt.prefix = "house"
    let s = try BrokerSettings(site: site.mqtt, broker: nil)
    #expect(s == BrokerSettings(broker: "mqtts://broker.lan:8883", username: "agg", passwordFile: nil,
                                passwordEnvironment: "WHEREABOUTS_MQTT_PASSWORD", caFile: "/etc/ca.crt",
                                certFile: "/etc/agg.crt", keyFile: "/etc/agg.key", prefix: "house"))
    let options = try AggregatorSettings.mqttOptions(site: site, broker: nil, clientID: "agg")
    #expect(options.password == .environment("WHEREABOUTS_MQTT_PASSWORD") && options.tls.caFile == "/etc/ca.crt")
    #expect(options.will?.topic == "house/aggregator/status")
}

@Test func aPasswordFileWinsOverTheEnvironmentAndNoUserSendsNoPassword() throws {
    var site = Site()
    site.mqtt.username = "agg"; site.mqtt.passwordFile = "/etc/pw"
    #expect(try AggregatorSettings.mqttOptions(site: site, broker: nil, clientID: "a").password == .file("/etc/pw"))
    site.mqtt.username = nil
    #expect(try AggregatorSettings.mqttOptions(site: site, broker: nil, clientID: "a").password == nil)
}

/// TLS files with a plaintext `--broker` were ignored (the password then went in clear); the
/// edge refused that already, and now the aggregator does too, blaming the flag.
@Test func tlsFilesWithAPlaintextBrokerAreTheFlagsConflict() {
    var site = Site()
    site.mqtt.tls = TLSSettings(ca: "/etc/ca.crt")
    #expect(throws: SiteBrokerConflict(key: "--broker", message: "tls.ca, tls.cert, tls.key: only for an mqtts:// broker, not mqtt://127.0.0.1:1883")) {
        try BrokerSettings(site: site.mqtt, broker: BrokerURL(host: "127.0.0.1"))
    }
    // The same section without the flag goes together (its tls makes the scheme mqtts://).
    #expect((try? BrokerSettings(site: site.mqtt, broker: nil)) != nil)
}

/// The section's own mistakes are the file's (`mqtt.tls`), with or without `--broker`.
@Test func aBadTLSSectionIsTheSitesConflictWhateverTheFlag() {
    var site = Site()
    site.mqtt.tls = TLSSettings(ca: nil, cert: "/etc/agg.crt", key: "/etc/agg.key")
    let noCA = SiteBrokerConflict(key: "mqtt.tls", message: "tls.cert and tls.key: need tls.ca too (with the system's CA store no client certificate is sent)")
    #expect(throws: noCA) { try BrokerSettings(site: site.mqtt, broker: nil) }
    #expect(throws: noCA) { try BrokerSettings(site: site.mqtt, broker: BrokerURL(host: "127.0.0.1")) }
    site.mqtt.tls = TLSSettings(ca: "/etc/ca.crt", cert: "/etc/agg.crt", key: nil)
    let pair = SiteBrokerConflict(key: "mqtt.tls", message: "tls.cert and tls.key: give both or neither")
    #expect(throws: pair) { try BrokerSettings(site: site.mqtt, broker: nil) }
    #expect(throws: pair) { try BrokerSettings(site: site.mqtt, broker: BrokerURL(host: "127.0.0.1")) }
}

/// The conflict as a site file's error points at the `tls` entry's line.
@Test func aConflictPointsAtTheTLSLine() {
    var locations = SiteLocations()
    locations.settings["mqtt"] = SourceLocation(line: 3, key: "mqtt")
    locations.settings["mqtt.tls"] = SourceLocation(line: 5, key: "mqtt.tls")
    let p = SiteBrokerConflict(key: "mqtt.tls", message: "m").problem(at: locations)
    #expect(p.description == "5: mqtt.tls: m")
    #expect(SiteBrokerConflict(key: "mqtt", message: "m").problem(at: locations).line == 3)
}
