import Testing
import Options

private func settings(_ values: [String: String]) throws(UsageError) -> BrokerSettings {
    try BrokerSettings { values[$0] }
}

@Test func brokerSettingsReadEveryKeyAndDefaultTheBroker() throws {
    let s = try settings(["username": "kitchen", "password_file": "/etc/pw", "tls.ca": "ca", "tls.cert": "c", "tls.key": "k"])
    #expect(s == BrokerSettings(broker: "mqtt://127.0.0.1:1883", username: "kitchen", passwordFile: "/etc/pw",
                                passwordEnvironment: nil, caFile: "ca", certFile: "c", keyFile: "k"))
    #expect(BrokerSettings.options.map(\.name) == ["broker", "username", "password-file", "password-env", "tls-ca", "tls-cert", "tls-key"])
}

@Test(arguments: [
    (["username": "u", "password_file": "f", "password_env": "E"], "password_file and password_env: give one, not both"),
    (["password_env": "E"], "username: required when a password file or variable is given"),
    (["tls.cert": "c"], "tls.cert and tls.key: give both or neither"),
])
func brokerSettingsThatDoNotGoTogether(values: [String: String], message: String) {
    #expect(throws: UsageError(message)) { try settings(values) }
}
