import Wire
import SiteModel

/// How fast and how far self-calibration learns (`SelfCalibration`).
///
/// Each node's offset is a running mean of its residuals, each floor's exponent a running
/// regression of residuals on log-distance. "Memory" caps the evidence behind a value: once it
/// is reached, old evidence fades as new comes, so a node moved or an antenna turned is
/// followed, over that many readings, and no single device can swing it.
public struct SelfCalibrationOptions: Sendable, Equatable {
    /// Evidence (readings, each counted up to `Observation.fullWeightSamples`) behind a node's
    /// offset at most.
    public var nodeMemory = 3000.0
    /// Evidence a node's offset starts with, at 0 dB: its first residuals move it little.
    public var nodePrior = 60.0
    /// The most a learned offset may reach, dB either way.
    public var offsetLimit = 10.0
    /// One residual counts at most this many dB either way (a wall the site does not know is
    /// a place, not a receiver).
    public var residualLimit = 12.0
    /// Evidence (summed squared spread of `-10·log10 d`, dB²) behind a floor's exponent at most,
    /// and the evidence it starts with at the site's `absorption`.
    public var exponentMemory = 200_000.0
    public var exponentPrior = 4_000.0
    /// How far the learned exponent may go from the site's `absorption`, and its bounds.
    public var exponentReach = 1.0
    public var exponentRange: ClosedRange<Double> = 1.5...4.5
    /// Fixes from fewer nodes teach nothing: with three, the fix fits them nearly exactly.
    public var minimumNodes = 4
    /// An anchored device's reading weighs this many times a fix's: its position is known.
    public var anchorWeight = 4.0
    /// Metres a device's fix must have moved since it last taught before it teaches again. A
    /// still device's fix and the offsets explain each other: taught at every solve, the
    /// offsets would learn the fix's error as the nodes' and hold the device where it was put.
    /// Each place a device passes counts once; an anchored device (its place known) every solve.
    public var teachingStep = 2.0
    /// How much a fix's residuals teach node offsets (1: as much as an anchored reading less
    /// `anchorWeight`). 0 by default: on every simulated site (tools/scenarios, committed seeds)
    /// any weight made positions worse — the fix and the offsets explain each other — so
    /// offsets are learned from anchored devices and node beacons, whose places are known.
    public var fixOffsetWeight = 0.0

    public init() {}
}

/// What the engine learns from ordinary traffic: each node's receiver offset (dB added to what
/// it reports, as `rx_adj`) and each floor's path-loss exponent. Each device's reference power
/// is `TxLearning`'s (the device's `txOffset`).
///
/// The gauge: a level common to every receiver cannot be told from the transmitters' power, so
/// the offsets are applied less their mean (`offset(node:)`), and every device's `txOffset`
/// carries the common level.
public struct SelfCalibration: Sendable {
    public var mode: SelfCalibrationMode
    public var options: SelfCalibrationOptions
    /// Per node, by site index: the learned offset before the gauge, and its evidence.
    public private(set) var raw: [Double]
    public private(set) var evidence: [Double]
    /// Per floor, by site index: the learned exponent and its evidence.
    public private(set) var exponents: [Double]
    public private(set) var exponentEvidence: [Double]
    /// Lessons taught: a node's reading moving its offset (anchored devices, node beacons, fixes
    /// when `fixOffsetWeight` > 0), a solve moving its floor's exponent.
    public private(set) var updates = 0
    /// Per beaconing node (by site index): the running mean residual of its beacon (its own
    /// transmit offset), taken out before its readings teach the receivers.
    private var beaconLevel: [Double]
    private var beaconEvidence: [Double]
    /// Sum of `raw` over the nodes with evidence, and their count: the gauge's level.
    private var rawSum = 0.0
    private var learnedNodes = 0
    let absorption: Double
    /// Whether fixes teach the exponent: only when the site left `absorption` at its default
    /// guess (`PositioningSettings.absorptionStated`); a stated one moves only by anchored readings.
    public var fixesTeachExponent = true

    public init(mode: SelfCalibrationMode, nodes: Int, floors: Int, absorption: Double,
                options: SelfCalibrationOptions = SelfCalibrationOptions()) {
        self.mode = mode
        self.options = options
        self.absorption = absorption
        raw = Array(repeating: 0, count: nodes)
        evidence = Array(repeating: 0, count: nodes)
        exponents = Array(repeating: absorption, count: floors)
        exponentEvidence = Array(repeating: 0, count: floors)
        beaconLevel = Array(repeating: 0, count: nodes)
        beaconEvidence = Array(repeating: 0, count: nodes)
    }

    /// Whether anything learned is applied.
    public var applies: Bool { mode != .off }
    /// Whether solves teach.
    public var learns: Bool { mode == .learn }

    /// dB to add to node `n`'s RSSI: its learned offset less the mean over learned nodes; 0 off.
    @inline(__always)
    public func offset(node n: Int) -> Double {
        guard applies, evidence[n] > 0 else { return 0 }
        return raw[n] - rawSum / Double(learnedNodes)
    }

    /// The path-loss model on floor `f`.
    @inline(__always)
    func model(floor f: Int, base: PathLoss) -> PathLoss {
        guard applies, exponentEvidence.indices.contains(f), exponentEvidence[f] > 0 else { return base }
        return PathLoss(exponent: exponents[f])
    }

    /// Moves node `n`'s offset against `residual` (dB, its reading less the model's, with the
    /// offset already applied) with `weight`.
    mutating func teach(node n: Int, residual: Double, weight: Double) {
        guard weight > 0 else { return }
        let e = max(min(residual, options.residualLimit), -options.residualLimit)
        if evidence[n] == 0 { learnedNodes += 1; rawSum += raw[n] }
        evidence[n] = min(evidence[n] + weight, options.nodeMemory)
        let before = raw[n]
        raw[n] = max(min(raw[n] - weight * e / (evidence[n] + options.nodePrior), options.offsetLimit), -options.offsetLimit)
        rawSum += raw[n] - before
        updates += 1
    }

    /// Moves floor `f`'s exponent by one solve's regression: `sxy` = Σ w·e·(b − b̄) and
    /// `sxx` = Σ w·(b − b̄)², with `b = -10·log10 d` and `e` the residuals less their mean.
    mutating func teachExponent(floor f: Int, sxy: Double, sxx: Double) {
        guard exponentEvidence.indices.contains(f), sxx > 0 else { return }
        exponentEvidence[f] = min(exponentEvidence[f] + sxx, options.exponentMemory)
        let step = sxy / (exponentEvidence[f] + options.exponentPrior)
        let reach = (absorption - options.exponentReach)...(absorption + options.exponentReach)
        let n = min(max(exponents[f] + step, reach.lowerBound), reach.upperBound)
        exponents[f] = min(max(n, options.exponentRange.lowerBound), options.exponentRange.upperBound)
        updates += 1
    }

    /// One beacon reading of node `from` by node `to`: `residual` its RSSI (offset applied)
    /// less the model's at the nodes' distance. The beacon's own level is taken out first.
    mutating func teachBeacon(from: Int, to: Int, residual: Double) {
        let e = max(min(residual, options.residualLimit), -options.residualLimit)
        beaconEvidence[from] = min(beaconEvidence[from] + 1, options.nodeMemory)
        beaconLevel[from] += (e - beaconLevel[from]) / beaconEvidence[from]
        // A beacon's first readings only set its level: its residuals mean nothing before it.
        guard beaconEvidence[from] >= 10 else { return }
        teach(node: to, residual: e - beaconLevel[from], weight: 1)
    }

    /// Sets what was learned before (`SelfCalibrationSnapshot.restore`).
    mutating func restore(node n: Int, offset: Double, evidence e: Double) {
        guard raw.indices.contains(n), e > 0 else { return }
        if evidence[n] > 0 { rawSum -= raw[n]; learnedNodes -= 1 }
        raw[n] = max(min(offset, options.offsetLimit), -options.offsetLimit)
        evidence[n] = min(e, options.nodeMemory)
        rawSum += raw[n]; learnedNodes += 1
    }

    mutating func restore(floor f: Int, exponent: Double, evidence e: Double) {
        guard exponents.indices.contains(f), e > 0, exponent.isFinite else { return }
        exponents[f] = min(max(exponent, options.exponentRange.lowerBound), options.exponentRange.upperBound)
        exponentEvidence[f] = min(e, options.exponentMemory)
    }

    mutating func restore(updates: Int) { self.updates = max(updates, 0) }
}
