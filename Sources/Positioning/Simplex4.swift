/// A Nelder–Mead simplex in four dimensions (standard reflection 1, expansion 2,
/// contraction ½, shrink ½).
struct Simplex4 {
    private var points: [SIMD4<Double>]
    private var values: [Double]

    init(start: SIMD4<Double>, steps: SIMD4<Double>, f: (SIMD4<Double>) -> Double) {
        points = [start]
        for axis in 0..<4 {
            var p = start
            p[axis] += steps[axis] == 0 ? 0.1 : steps[axis]
            points.append(p)
        }
        values = points.map(f)
    }

    var best: SIMD4<Double> { points[values.indices.min { values[$0] < values[$1] } ?? 0] }
    var bestValue: Double { values.min() ?? .infinity }

    mutating func minimise(f: (SIMD4<Double>) -> Double, maxEvaluations: Int, tolerance: Double) {
        var evaluations = 5
        while evaluations < maxEvaluations {
            order()
            if abs(values[4] - values[0]) <= tolerance * (abs(values[0]) + abs(values[4]) + 1e-12) { return }
            var centroid = SIMD4<Double>(repeating: 0)
            for i in 0..<4 { centroid += points[i] }
            centroid /= 4
            let reflected = centroid + (centroid - points[4])
            let fr = f(reflected); evaluations += 1
            if fr < values[0] {
                let expanded = centroid + 2 * (centroid - points[4])
                let fe = f(expanded); evaluations += 1
                if fe < fr { replaceWorst(expanded, fe) } else { replaceWorst(reflected, fr) }
            } else if fr < values[3] {
                replaceWorst(reflected, fr)
            } else {
                let outside = fr < values[4]
                let contracted = outside ? centroid + 0.5 * (reflected - centroid) : centroid + 0.5 * (points[4] - centroid)
                let fc = f(contracted); evaluations += 1
                if fc < min(fr, values[4]) {
                    replaceWorst(contracted, fc)
                } else {
                    for i in 1...4 {
                        points[i] = points[0] + 0.5 * (points[i] - points[0])
                        values[i] = f(points[i])
                    }
                    evaluations += 4
                }
            }
        }
        order()
    }

    private mutating func replaceWorst(_ p: SIMD4<Double>, _ v: Double) {
        points[4] = p
        values[4] = v
    }

    private mutating func order() {
        // Five points: an insertion sort keeps both arrays in step.
        for i in 1..<5 {
            var j = i
            while j > 0 && values[j - 1] > values[j] {
                values.swapAt(j - 1, j)
                points.swapAt(j - 1, j)
                j -= 1
            }
        }
    }
}
