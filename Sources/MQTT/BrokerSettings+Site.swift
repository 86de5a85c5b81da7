public import Options
public import SiteModel

/// Why a site's `mqtt` section, with or without `--broker`, does not make broker settings:
/// which of the two is at fault (`key`) and the check that failed (`message`).
public struct SiteBrokerConflict: Error, Sendable, Equatable {
    /// `--broker` when the flag's scheme clashes with the section; else the site key
    /// (`mqtt.tls`, or `mqtt`).
    public var key: String
    /// `BrokerSettings.validate()`'s message, naming the settings that do not go together.
    public var message: String
    public init(key: String, message: String) { self.key = key; self.message = message }

    /// As a site file's error, at the line of `key` (`mqtt.tls`; for `--broker`, the section's
    /// `tls`), else of the `mqtt` section.
    public func problem(at locations: SiteLocations) -> SiteProblem {
        let at = locations.settings[key == "--broker" ? "mqtt.tls" : key] ?? locations.settings["mqtt"]
        return SiteProblem(.error, line: at?.line ?? 0, key: key, message: message)
    }
}

extension BrokerSettings {
    /// The environment variable a site's MQTT password comes from when it names no `password_file`.
    public static let sitePasswordEnvironment = "WHEREABOUTS_MQTT_PASSWORD"

    /// The broker settings of a site's `mqtt` section, with `broker` (`--broker`) winning over
    /// its host, port and scheme, checked as every tool's are (`validate()`). The one mapping
    /// of a site to broker settings: the aggregator connects with it and `whereabouts
    /// check-site` checks with it, so a file one accepts the other does not refuse.
    /// The password comes from `password_file`, else `WHEREABOUTS_MQTT_PASSWORD`; never a flag.
    public init(site m: MQTTSettings, broker: BrokerURL?) throws(SiteBrokerConflict) {
        try self.init(site: m, brokers: broker.map { [$0] })
    }

    /// As `init(site:broker:)`, with `--broker` a list of nodes (`BrokerURL.list(parsing:)`).
    public init(site m: MQTTSettings, brokers: [BrokerURL]?) throws(SiteBrokerConflict) {
        let own = BrokerURL(host: m.host, port: m.port, tls: m.tls != nil)
        self.init(broker: brokers.map(BrokerURL.listDescription) ?? own.description, username: m.username,
                  // Without a user there is no password to send: neither source is named.
                  passwordFile: m.username == nil ? nil : m.passwordFile,
                  passwordEnvironment: m.username == nil || m.passwordFile != nil ? nil : Self.sitePasswordEnvironment,
                  caFile: m.tls?.ca, certFile: m.tls?.cert, keyFile: m.tls?.key, prefix: m.prefix)
        // The section is checked on its own first, so that a clash `--broker` brings (a
        // plaintext flag with the section's TLS files) is the flag's, and the section's own
        // mistakes are the file's whatever the flag.
        var alone = self
        alone.broker = own.description
        do { try alone.validate() } catch { throw SiteBrokerConflict(key: m.tls == nil ? "mqtt" : "mqtt.tls", message: error.message) }
        do { try validate() } catch { throw SiteBrokerConflict(key: "--broker", message: error.message) }
    }
}
