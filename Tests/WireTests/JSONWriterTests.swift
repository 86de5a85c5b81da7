import Testing
import Wire

@Test func writesNestedObjectsWithCommas() {
    var w = JSONWriter()
    w.objectStart()
    w.field("node", "kit\"chen\n")
    w.key("seq"); w.value(UInt64(1842))
    w.key("t"); w.time(1764410000.25)
    w.key("readings"); w.arrayStart()
    w.objectStart(); w.field("rssi", -67); w.objectEnd()
    w.objectStart(); w.field("x", 1.5); w.key("d"); w.hex([0x0a, 0xff]); w.objectEnd()
    w.arrayEnd()
    w.key("none"); w.null()
    w.objectEnd()
    #expect(w.string == #"{"node":"kit\"chen\n","seq":1842,"t":1764410000.250,"readings":[{"rssi":-67},{"x":1.5,"d":"0aff"}],"none":null}"#)
}

@Test(arguments: [
    (0.0, "0"), (-0.0004, "0"), (1.5, "1.5"), (-2.25, "-2.25"), (3.1416, "3.142"), (10.0, "10"), (-67.0, "-67"),
    (0.001, "0.001"), (Double.nan, "null"), (Double.infinity, "null"),
])
func numbersAreTrimmed(value: Double, text: String) {
    var w = JSONWriter()
    w.value(value)
    #expect(w.string == text)
}

@Test func timesKeepMilliseconds() {
    var w = JSONWriter()
    w.arrayStart(); w.time(1764410000.0); w.time(1764410000.1234); w.time(0.5); w.arrayEnd()
    #expect(w.string == "[1764410000.000,1764410000.123,0.500]")
}
