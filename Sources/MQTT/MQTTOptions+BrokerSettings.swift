public import Options

extension MQTTOptions {
    /// Options for `settings` (already checked); throws when the broker URL, or one of a list
    /// (`BrokerURL.list(parsing:)`), is not one. Every tool that connects (the edge, the
    /// aggregator, `whereabouts watch`) makes its options here.
    public init(_ settings: BrokerSettings, clientID: String) throws(MQTTError) {
        let brokers = try BrokerURL.list(parsing: settings.broker)
        self.init(broker: brokers[0], clientID: clientID)
        self.brokers = brokers
        username = settings.username
        password = settings.passwordFile.map { .file($0) } ?? settings.passwordEnvironment.map { .environment($0) }
        tls = TLSOptions(caFile: settings.caFile, certFile: settings.certFile, keyFile: settings.keyFile)
    }
}
