import Foundation
import PushLedgerSupport

/// The simulator's own seeded generator (xoshiro256**, seeded by SplitMix64), so one seed
/// gives byte-identical output on every platform and Swift version.
struct SimRandom {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// A stream for one purpose: the same (seed, stream) always yields the same numbers.
    init(seed: UInt64, stream: UInt64 = 0) {
        var sm = seed ^ (stream &* 0x9E37_79B9_7F4A_7C15)
        s0 = Self.splitMix(&sm)
        s1 = Self.splitMix(&sm)
        s2 = Self.splitMix(&sm)
        s3 = Self.splitMix(&sm)
    }

    static func splitMix(_ x: inout UInt64) -> UInt64 {
        var generator = SplitMix64(seed: x)
        defer { x = generator.state }
        return generator.next()
    }

    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Uniform in [0, bound); bound > 0.
    mutating func below(_ bound: Int64) -> Int64 { Int64(next() % UInt64(bound)) }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(below(Int64(range.upperBound - range.lowerBound + 1)))
    }

    /// Exponentially distributed with the given mean.
    mutating func exponential(mean: Double) -> Double {
        var u = unit()
        if u < 1e-12 { u = 1e-12 }
        return -mean * Foundation.log1p(-u)
    }

    /// Poisson-distributed count (Knuth; means here are small).
    mutating func poisson(mean: Double) -> Int {
        let limit = Foundation.exp(-mean)
        var product = unit(), count = 0
        while product > limit {
            count += 1
            product *= unit()
        }
        return count
    }

    /// Index picked with the given weights (need not sum to 1).
    mutating func weighted(_ weights: [Double]) -> Int {
        let total = weights.reduce(0, +)
        var x = unit() * total
        for (i, w) in weights.enumerated() {
            if x < w { return i }
            x -= w
        }
        return weights.count - 1
    }

    /// A random (version 4) UUID.
    mutating func uuid() -> SimUUID {
        let hi = (next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let lo = (next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return SimUUID(hi: hi, lo: lo)
    }
}

/// A UUID as two words: cheap to hash, compare and print.
struct SimUUID: Hashable, Comparable, Sendable {
    var hi: UInt64
    var lo: UInt64
    static func < (a: SimUUID, b: SimUUID) -> Bool { (a.hi, a.lo) < (b.hi, b.lo) }
}
