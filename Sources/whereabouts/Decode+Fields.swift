import BLE
import Wire

extension PacketPrinter {
    /// The decoded AD fields, after the fields scripts already read: flags, tx_power_level
    /// and appearance (null when not sent), names, services, service_data and
    /// manufacturer_data (empty when none), and malformed (only when some structure is).
    mutating func writeFields(_ fields: ADFields) {
        json.key("flags"); optionalNumber(fields.flags.map(Int.init))
        json.key("tx_power_level"); optionalNumber(fields.txPowerLevel.map(Int.init))
        json.key("appearance"); optionalNumber(fields.appearance.map(Int.init))
        writeNames(fields.names)
        json.key("services")
        json.arrayStart()
        for s in fields.services {
            json.objectStart()
            json.field("uuid", s.uuid.description); json.field("bits", s.bits); json.field("complete", s.complete)
            json.objectEnd()
        }
        json.arrayEnd()
        json.key("service_data")
        json.arrayStart()
        for d in fields.serviceData {
            json.objectStart()
            json.field("uuid", d.uuid.description); json.field("bits", d.bits); json.key("data"); json.hex(d.data)
            json.objectEnd()
        }
        json.arrayEnd()
        json.key("manufacturer_data")
        json.arrayStart()
        for m in fields.manufacturerData {
            json.objectStart(); json.field("company", Int(m.company)); json.key("data"); json.hex(m.data); json.objectEnd()
        }
        json.arrayEnd()
        if !fields.malformed.isEmpty { writeMalformed(fields.malformed) }
    }

    /// Each name as the readable text a C reader shows (up to a NUL or a byte that is not
    /// UTF-8), its bytes, and `truncated` when the text is not all of them.
    private mutating func writeNames(_ names: [ADFields.Name]) {
        json.key("names")
        json.arrayStart()
        for n in names {
            json.objectStart()
            json.field("text", n.name.readableText)
            json.field("complete", n.complete)
            json.key("hex"); json.hex(n.name.bytes)
            if n.name.readableCount < n.name.bytes.count { json.field("truncated", true) }
            json.objectEnd()
        }
        json.arrayEnd()
    }

    private mutating func writeMalformed(_ structures: [ADStructure]) {
        json.key("malformed")
        json.arrayStart()
        for s in structures {
            json.objectStart()
            json.field("type", Int(s.type)); json.field("offset", s.offset); json.key("hex"); json.hex(s.value)
            json.objectEnd()
        }
        json.arrayEnd()
    }

    private mutating func optionalNumber(_ value: Int?) { if let value { json.value(value) } else { json.null() } }
}
