/// The options by their names from before the stages had options of their own: callers
/// (the aggregator, `whereabouts locate`, the lab) set them so, and each reads and writes
/// its stage's value.
extension EngineOptions {
    /// `hold.limit`.
    public var holdLimit: Double { get { hold.limit } set { hold.limit = newValue } }
    /// `hold.reportsHeldFixes`.
    public var reportsHeldFixes: Bool { get { hold.reportsHeldFixes } set { hold.reportsHeldFixes = newValue } }
    /// `hold.levelChange`.
    public var holdLevelChange: Double { get { hold.levelChange } set { hold.levelChange = newValue } }
    /// `hold.speed`.
    public var holdSpeed: Double { get { hold.speed } set { hold.speed = newValue } }
    /// `hold.step`.
    public var holdStep: Double { get { hold.step } set { hold.step = newValue } }
    /// `hold.settle`.
    public var holdSettle: Double { get { hold.settle } set { hold.settle = newValue } }
    /// `zones.dwell`.
    public var dwell: Double { get { zones.dwell } set { zones.dwell = newValue } }
    /// `zones.margin`.
    public var margin: Double { get { zones.margin } set { zones.margin = newValue } }
    /// `room.evidence`.
    public var roomEvidence: Double { get { room.evidence } set { room.evidence = newValue } }
    /// `room.drift`.
    public var roomDrift: Double { get { room.drift } set { room.drift = newValue } }
    /// `room.step`.
    public var roomStep: Double { get { room.step } set { room.step = newValue } }
    /// `room.fullConfidence`.
    public var roomConfidence: Double { get { room.fullConfidence } set { room.fullConfidence = newValue } }
    /// `room.heardStep`.
    public var heardStep: Double { get { room.heardStep } set { room.heardStep = newValue } }
    /// `room.heardScale`.
    public var heardScale: Double { get { room.heardScale } set { room.heardScale = newValue } }
    /// `room.firstRoomSolves`.
    public var firstRoomSolves: Int { get { room.firstRoomSolves } set { room.firstRoomSolves = newValue } }
    /// `room.firstRoomConfidence`.
    public var firstRoomConfidence: Double { get { room.firstRoomConfidence } set { room.firstRoomConfidence = newValue } }
    /// `room.minimumConfidence`.
    public var minimumConfidence: Double { get { room.minimumConfidence } set { room.minimumConfidence = newValue } }
    /// `room.farRoomFactor`.
    public var farRoomDwellFactor: Double { get { room.farRoomFactor } set { room.farRoomFactor = newValue } }
    /// `transmitPower.timeConstant`; 0 turns the learning off.
    public var txLearning: Double { get { transmitPower.timeConstant } set { transmitPower.timeConstant = newValue } }
    /// `transmitPower.limit`.
    public var txOffsetLimit: Double { get { transmitPower.limit } set { transmitPower.limit = newValue } }
    /// `tracker.maxSpeed`.
    public var maxSpeed: Double { get { tracker.maxSpeed } set { tracker.maxSpeed = newValue } }
    /// `tracker.acceleration`.
    public var acceleration: Double { get { tracker.acceleration } set { tracker.acceleration = newValue } }
    /// `stillMean.step`.
    public var stillStep: Double { get { stillMean.step } set { stillMean.step = newValue } }
    /// `stillMean.settle`; infinite turns the still mean off.
    public var stillSettle: Double { get { stillMean.settle } set { stillMean.settle = newValue } }
    /// `stillMean.speed`.
    public var stillSpeed: Double { get { stillMean.speed } set { stillMean.speed = newValue } }
}
