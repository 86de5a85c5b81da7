import Foundation
@testable import Simulation
import Testing

/// The pure-Swift functions agree with the platform's libm over the ranges the model uses.
@Test func elementaryFunctionsAgreeWithLibm() {
    var x = -50.0
    while x <= 50 {
        #expect(abs(Elementary.cos(x) - Foundation.cos(x)) < 1e-12, "cos \(x)")
        #expect(abs(Elementary.sin(x) - Foundation.sin(x)) < 1e-12, "sin \(x)")
        #expect(abs(Elementary.exp(x / 5) - Foundation.exp(x / 5)) <= 1e-13 * Foundation.exp(x / 5), "exp \(x / 5)")
        x += 0.0137
    }
    for v in [1e-6, 0.01, 0.1, 0.5, 1, 2, 3.3, 10, 55.5, 1e4] {
        #expect(abs(Elementary.log10(v) - Foundation.log10(v)) < 1e-13, "log10 \(v)")
    }
    #expect(Elementary.log(0) == -.infinity)
    #expect(Elementary.log(-1).isNaN)
}

/// The random streams are uniform and normal as they claim, and named streams differ.
@Test func randomStreamsHaveTheirDistributions() {
    var rng = RandomStream(seed: 1, label: "test")
    let n = 200_000
    var sum = 0.0, sumSquares = 0.0, uniformSum = 0.0
    for _ in 0..<n {
        let g = rng.gaussian()
        sum += g; sumSquares += g * g
        uniformSum += rng.uniform()
    }
    #expect(abs(sum / Double(n)) < 0.01)
    #expect(abs(sumSquares / Double(n) - 1) < 0.02)
    #expect(abs(uniformSum / Double(n) - 0.5) < 0.005)
    var a = RandomStream(seed: 1, label: "a"), b = RandomStream(seed: 1, label: "b"), a2 = RandomStream(seed: 1, label: "a")
    let first = a.next()
    #expect(first != b.next())
    #expect(first == a2.next())
}
