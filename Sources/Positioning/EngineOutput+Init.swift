// Public initialisers, for the aggregator's recovered exits and for tests outside the module.

extension ZoneEvent {
    public init(_ type: Kind, device: String, zone: String, floor: String?, t: Double, confidence: Double,
                dwell: Double?, isRoom: Bool) {
        self.type = type; self.device = device; self.zone = zone; self.floor = floor
        self.t = t; self.confidence = confidence; self.dwell = dwell; self.isRoom = isRoom
    }
}
