import Testing
@testable import Positioning
import Wire
import SiteModel

/// The walk oracle (Positioning/Evaluation/WalkOracle*.swift): the least-squares fix of the
/// log-distance model from each receiver's mean RSSI at one moment.
struct WalkOracleTests {
    /// Six receivers on a 12 × 8 m floor at two heights, as the philotuxo receivers are.
    static let nodes = [Node(name: "a", point: Point3(0.5, 0.5, 2.3)), Node(name: "b", point: Point3(6, 0.3, 1.2)),
                        Node(name: "c", point: Point3(11.5, 0.6, 2.3)), Node(name: "d", point: Point3(11.4, 7.5, 1.2)),
                        Node(name: "e", point: Point3(6.2, 7.7, 2.3)), Node(name: "f", point: Point3(0.4, 7.4, 1.2))]
    static let bounds = (min: Point2(0, 0), max: Point2(12, 8))
    /// Each receiver its own exponent and intercept.
    static let model = ReceiverPathLoss(exponents: [1.4, 2.2, 3.1, 1.8, 2.6, 1.1], intercepts: [-58, -61, -55, -63, -60, -57])

    /// The model's RSSI at `p` for every receiver, plus `shift` dB on all of them.
    static func means(at p: Point3, shift: Double = 0) -> [Double] {
        nodes.indices.map { j in
            model.intercepts[j] - 10 * model.exponents[j] * Elementary.log10(max(distance(p, nodes[j].point), 0.1)) + shift
        }
    }

    static func moment(at p: Point3, shift: Double = 0, counts: [Int]? = nil) -> WalkMoment {
        WalkMoment(t: 0, truth: p, means: means(at: p, shift: shift), counts: counts ?? Array(repeating: 5, count: nodes.count))
    }

    /// The 2-D error of a fix; infinite where there is none.
    static func error(_ fix: Point2?, _ p: Point3) -> Double {
        guard let fix else { return .infinity }
        return ((fix.x - p.x) * (fix.x - p.x) + (fix.y - p.y) * (fix.y - p.y)).squareRoot()
    }

    @Test(arguments: [Point3(3.3, 4.1, 1.8), Point3(10.9, 1.2, 1.7), Point3(0, 6.05, 1.8), Point3(6.0, 0.4, 1.75), Point3(12, 8, 1.9)])
    func exactMeansAreFixedWhereTheyCameFrom(_ p: Point3) {
        // A coarse grid on purpose: the refinement, not the grid, must find the point.
        let oracle = WalkOracle(nodes: Self.nodes, bounds: Self.bounds, gridStep: 0.25)
        let fixes = oracle.fixes(Self.moment(at: p), variants: [WalkOracleVariant(model: Self.model),
                                                                 WalkOracleVariant(model: Self.model, freeReference: true)])
        for fix in fixes { #expect(Self.error(fix, p) < 0.02, "\(fix) for \(p)") }
    }

    @Test func aFreeReferenceAbsorbsAShiftOfEveryReceiverAndAFixedOneDoesNot() {
        // The carrier's body takes 8 dB from every receiver alike.
        let p = Point3(4.2, 5.1, 1.8)
        let oracle = WalkOracle(nodes: Self.nodes, bounds: Self.bounds)
        let fixes = oracle.fixes(Self.moment(at: p, shift: -8), variants: [WalkOracleVariant(model: Self.model),
                                                                         WalkOracleVariant(model: Self.model, freeReference: true)])
        #expect(Self.error(fixes[1], p) < 0.02, "\(fixes[1])")
        #expect(Self.error(fixes[0], p) > 0.5, "\(fixes[0])")
    }

    @Test func weightsFollowTheCountsAndAReceiverHeardTooRarelyIsLeftOut() {
        // Receiver a's mean is 15 dB off, from one reading; the others are exact, from six each.
        let p = Point3(7.5, 3.5, 1.8)
        var moment = Self.moment(at: p, counts: [1, 6, 6, 6, 6, 6])
        moment.means[0] += 15
        let oracle = WalkOracle(nodes: Self.nodes, bounds: Self.bounds)
        let fixes = oracle.fixes(moment, variants: [WalkOracleVariant(model: Self.model, weighted: false),
                                                    WalkOracleVariant(model: Self.model),
                                                    WalkOracleVariant(model: Self.model, minimumReadings: 2)])
        #expect(Self.error(fixes[2], p) < 0.02, "\(fixes[2])")
        // Weighted by count, the lone reading pulls less than it does unweighted.
        #expect(Self.error(fixes[1], p) < Self.error(fixes[0], p), "\(fixes)")
        #expect(Self.error(fixes[0], p) > 0.1, "\(fixes[0])")
    }

    @Test func aModelForFewerReceiversUsesOnlyThoseItHas() {
        // A model of the first four receivers only, on an oracle of six: e and f are left out, not a trap.
        let p = Point3(5, 5, 1.8)
        let short = ReceiverPathLoss(exponents: Array(Self.model.exponents.prefix(4)), intercepts: Array(Self.model.intercepts.prefix(4)))
        var moment = Self.moment(at: p)
        moment.means[4] = -20; moment.means[5] = -20
        let fix = WalkOracle(nodes: Self.nodes, bounds: Self.bounds).fixes(moment, variants: [WalkOracleVariant(model: short)])
        #expect(Self.error(fix[0], p) < 0.02, "\(fix)")
    }

    @Test func aMomentWithNoReceiverGetsTheFloorsCentre() {
        var moment = Self.moment(at: Point3(1, 1, 1.8))
        moment.counts = Array(repeating: 0, count: Self.nodes.count)
        let fix = WalkOracle(nodes: Self.nodes, bounds: Self.bounds, gridStep: 0.5).fixes(moment, variants: [WalkOracleVariant(model: Self.model)])
        #expect(fix == [Point2(6, 4)])
    }

    @Test func momentsAreWholeSecondsWithWindowsCentredAndInsideTheRecording() {
        // Receiver a heard every 0.5 s at -60, -61, -62, …; b once, at 2.0 s.
        var readings: [(node: String, reading: Reading)] = (0...12).map { i in
            ("a", Reading(id: "mac:x", rssi: -60 - i, t: 100 + Double(i) * 0.5, kind: .mac))
        }
        readings.insert(("b", Reading(id: "mac:x", rssi: -70, t: 102, kind: .mac)), at: 5)
        let truth = [(t: 100.0, position: Point3(0, 0, 1.5)), (t: 106.0, position: Point3(6, 0, 1.8))]
        let walk = Walk(name: "w", readings: readings, truth: truth)
        let oracle = WalkOracle(nodes: Self.nodes, bounds: Self.bounds)
        let moments = oracle.moments(of: walk)
        // 101.5 … 104.5: the last window ends at the last reading, 106.
        #expect(moments.map(\.t) == [101.5, 102.5, 103.5, 104.5])
        // 100.0 … 103.0 inclusive: seven readings of a, -60 … -66.
        #expect(moments[0].counts[0] == 7 && moments[0].means[0] == -63)
        #expect(moments[0].counts[1] == 1 && moments[0].means[1] == -70)
        #expect(moments[3].counts[1] == 0)
        #expect(abs(moments[0].truth.x - 1.5) < 1e-9 && abs(moments[0].truth.z - 1.575) < 1e-9)
        // Trailing, as the engine's window: the same moments and truth, the readings of the 3 s before.
        let trailing = oracle.moments(of: walk, lag: 1.5)
        #expect(trailing.map(\.t) == moments.map(\.t) && trailing.map(\.truth) == moments.map(\.truth))
        // 98.5 … 101.5: a at 100.0 … 101.5 (-60 … -63), b not yet.
        #expect(trailing[0].counts[0] == 4 && trailing[0].means[0] == -61.5 && trailing[0].counts[1] == 0)
        #expect(trailing[1].counts[1] == 1)
    }

    @Test func aPerReceiverFitRecoversEachReceiversExponentAndIntercept() throws {
        // A walk across the floor, each receiver heard every 0.1 s with the model's RSSI rounded
        // to whole dB as radios report it.
        var readings: [(node: String, reading: Reading)] = []
        var truth: [(t: Double, position: Point3)] = []
        for step in 0..<400 {
            let t = Double(step) * 0.1, p = Point3(0.5 + Double(step) * 0.0275, 1 + Double(step % 100) * 0.06, 1.8)
            truth.append((t, p))
            for (j, m) in Self.means(at: p).enumerated() {
                readings.append((Self.nodes[j].name, Reading(id: "mac:x", rssi: Int(m.rounded()), t: t, kind: .mac)))
            }
        }
        let fit = try #require(ReceiverPathLoss.fitPerReceiver(walks: [Walk(name: "w", readings: readings, truth: truth)], nodes: Self.nodes))
        for j in Self.nodes.indices {
            #expect(abs(fit.exponents[j] - Self.model.exponents[j]) < 0.05, "\(j): \(fit.exponents[j])")
            #expect(abs(fit.intercepts[j] - Self.model.intercepts[j]) < 0.5, "\(j): \(fit.intercepts[j])")
            #expect(fit.exponentErrors[j] > 0 && fit.exponentErrors[j] < 0.05)
        }
    }

    @Test func aReceiverWithTooFewReadingsHasNoFitAndIsLeftOut() throws {
        let readings: [(node: String, reading: Reading)] = [("a", Reading(id: "mac:x", rssi: -60, t: 0, kind: .mac)),
                                                             ("a", Reading(id: "mac:x", rssi: -62, t: 1, kind: .mac))]
        let walk = Walk(name: "w", readings: readings, truth: [(0, Point3(1, 1, 1.8)), (1, Point3(2, 1, 1.8))])
        #expect(ReceiverPathLoss.fitPerReceiver(walks: [walk], nodes: Self.nodes) == nil)
        var model = Self.model
        model.exponents[0] = .nan
        let p = Point3(9, 2, 1.8)
        var moment = Self.moment(at: p)
        moment.means[0] = -20  // would drag the fix onto a if it were used
        let fix = WalkOracle(nodes: Self.nodes, bounds: Self.bounds).fixes(moment, variants: [WalkOracleVariant(model: model)])
        #expect(Self.error(fix[0], p) < 0.02, "\(fix)")
    }

    @Test func theFixIsTheGlobalOptimumOnARealWalk() throws {
        // straight_02 under a calibration fitted on itself with one exponent per receiver: no
        // point of a grid four times finer than the search's (0.05 m against 0.2 m) fits better.
        let (receivers, walks) = try RealWalkTests.load()
        let walk = walks[1]
        let model = try #require(ReceiverPathLoss.fitPerReceiver(walks: [walk], nodes: receivers))
        let bounds = (min: Point2(0, 0), max: Point2(20.66, 17.64))
        let oracle = WalkOracle(nodes: receivers, bounds: bounds, gridStep: 0.2)
        let fine = WalkOracleGrid(bounds: bounds, step: 0.05, nodes: receivers)
        let moments = oracle.moments(of: walk)
        #expect(moments.count == 52)
        for moment in moments.enumerated().filter({ $0.offset % 10 == 0 }).map(\.element) {
            for variant in [WalkOracleVariant(model: model), WalkOracleVariant(model: model, freeReference: true)] {
                let fix = try #require(oracle.fixes(moment, variants: [variant])[0])
                let search = WalkOracleSearch(oracle: oracle, z: moment.truth.z)
                let terms = WalkOracleSearch.Terms(moment: moment, variant: variant, receivers: oracle.used(moment, variant))
                let best = (0..<fine.cells).map { search.cost(terms, at: fine.point($0)) }.min() ?? .infinity
                #expect(search.cost(terms, at: fix) <= best + 1e-9, "at \(moment.t): \(fix)")
            }
        }
    }

    @Test func aFreeReferenceNeedsThreeReceivers() {
        // With two receivers and the reference free, a whole curve fits their difference
        // exactly: no fix, and the moment is counted, not placed on the grid's first point.
        let p = Point3(8, 5, 1.8)
        var moment = Self.moment(at: p, counts: [0, 0, 0, 4, 4, 0])
        let oracle = WalkOracle(nodes: Self.nodes, bounds: Self.bounds)
        let free = WalkOracleVariant(model: Self.model, freeReference: true)
        let two = oracle.fixes(moment, variants: [free, WalkOracleVariant(model: Self.model)])
        #expect(two[0] == nil)
        #expect(two[1] != nil)
        // Three give a fix (three equations, three unknowns: a few exact points, not a curve);
        // four pin it to where the means came from.
        moment.counts[2] = 4
        #expect(oracle.fixes(moment, variants: [free])[0] != nil)
        moment.counts[0] = 4
        #expect(Self.error(oracle.fixes(moment, variants: [free])[0], p) < 0.02)
    }

    @Test func aVariantsWindowWidthSetsTheReadingsNotTheMoments() {
        // Receiver a heard every 0.5 s from 100 to 106 s at -60, -61, …
        let readings: [(node: String, reading: Reading)] = (0...12).map { i in
            ("a", Reading(id: "mac:x", rssi: -60 - i, t: 100 + Double(i) * 0.5, kind: .mac))
        }
        let walk = Walk(name: "w", readings: readings, truth: [(t: 100.0, position: Point3(1, 1, 1.5)), (t: 106.0, position: Point3(7, 1, 1.5))])
        let oracle = WalkOracle(nodes: Self.nodes, bounds: Self.bounds)
        let narrow = oracle.moments(of: walk, lag: 0.5, width: 1)
        #expect(narrow.map(\.t) == oracle.moments(of: walk).map(\.t))
        // The second before 102.5: 101.5, 102.0, 102.5 (-63, -64, -65).
        #expect(narrow[1].counts[0] == 3 && narrow[1].means[0] == -64)
        // Six seconds trailing 104.5: from 98.5, so all of 100 … 104.5.
        #expect(oracle.moments(of: walk, lag: 3, width: 6)[3].counts[0] == 10)
        let variants = [WalkOracleVariant(model: Self.model, width: 1), WalkOracleVariant(model: Self.model, lag: 3, width: 6)]
        #expect(oracle.errors(on: walk, variants: variants).map(\.errors.count) == [4, 4])
    }

    @Test func aLocatorIsScoredAtEachMomentByItsLastUpdateThen() {
        var output = ReplayOutput()
        for (t, x) in [(100.5, 1.0), (101.0, 2.0), (102.5, 4.0)] {
            output.updates.append(DeviceUpdate(id: "d", name: nil, t: t, x: x, y: 0, z: 1, floor: "f", room: nil, zones: [],
                                               confidence: 1, fixes: 4, since: 0))
        }
        let moments = [100.0, 101.0, 102.0, 103.0].map { t in
            WalkMoment(t: t, truth: Point3(t - 100, 0, 1.5), means: [], counts: [])
        }
        // Before any update: none; at 101 the update of 101 itself; at 102 still that one; at 103 the one of 102.5.
        #expect(errors(of: output, at: moments) == [nil, 1, 0, 1])
    }

    @Test func theBootstrapIntervalIsSeededAndHoldsTheMedian() throws {
        // Errors that drift along the walk, as a real walk's do.
        let errors: [Double] = (0..<52).map { (k: Int) -> Double in
            let spike: Double = (k * 7) % 5 == 0 ? 0.8 : 0
            return 1 + 0.03 * Double(k) + spike
        }
        let median = ErrorSummary(errors: errors).median
        let bootstrap = BlockBootstrap()
        let interval = try #require(bootstrap.medianInterval(errors))
        #expect(interval.low < median && median < interval.high, "\(interval) around \(median)")
        #expect(interval.low >= (errors.min() ?? 0) && interval.high <= (errors.max() ?? 0))
        let again = try #require(bootstrap.medianInterval(errors))
        #expect([again.low, again.high] == [interval.low, interval.high])
        #expect(bootstrap.medianInterval(Array(repeating: 2, count: 10)).map { [$0.low, $0.high] } == [2, 2])
        #expect(bootstrap.medianInterval([]) == nil)
    }
}
