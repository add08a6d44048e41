import Foundation

@testable import Reports

/// A deterministic random fleet for the prompt-timing report, with every figure of
/// docs/metrics.md "Permission prompt timing" recomputed here in plain Swift from the same plan.
struct PromptFixture {
    struct Prompt {
        var at: Date
        var prompt: String
        var result: String
        var placement: String
    }
    struct Snapshot {
        var at: Date
        var canDisplay: Bool
        var provisional: Bool = false
    }
    struct Install {
        var id: UUID
        var platform: String
        var firstSeen: Date
        var exposures: [(at: Date, variant: String)] = []
        var prompts: [Prompt] = []
        var snapshots: [Snapshot] = []
    }

    /// The expected figures of one cohort.
    struct Expected: Equatable {
        var installs = 0, prompted = 0, granted = 0, provisional = 0, reached = 0, grantedWithoutPrompt = 0
        var retainedEligible = 0, retained = 0
        var hoursToPrompt: [Double] = []
        var median: Double? {
            let h = hoursToPrompt.sorted()
            guard !h.isEmpty else { return nil }
            return h.count % 2 == 1 ? h[h.count / 2] : (h[h.count / 2 - 1] + h[h.count / 2]) / 2
        }
    }

    static let from = Fixture.time(2026, 11, 2)
    static let to = Fixture.time(2026, 11, 9)
    static let asOf = Fixture.time(2026, 11, 25)
    var fixture: Fixture
    var installs: [Install] = []

    /// SplitMix64: a tiny seeded generator so the fleet is the same on every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: Range<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < p }
    }

    init(seed: UInt64 = 7, count: Int = 150, into fixture: Fixture? = nil) throws {
        self.fixture = try fixture ?? Fixture()
        var random = Random(state: seed)
        let hour = 3600.0
        for i in 0..<count {
            let platform = i % 3 == 0 ? "ios" : "android"
            let firstSeen = Fixture.time(2026, 11, 1).addingTimeInterval(Double(random.int(0..<(9 * 24 * 60))) * 60)
            var install = Install(id: Fixture.id(0x1b, i), platform: platform, firstSeen: firstSeen)
            if !random.chance(0.1) {
                let variant = random.chance(0.5) ? "first_screen" : "after_first_order"
                let exposed =
                    random.chance(0.08)
                    ? Fixture.time(2026, 10, 30) : firstSeen.addingTimeInterval(Double(random.int(1..<600)))
                install.exposures.append((exposed, variant))
                if random.chance(0.15) {  // a later re-exposure to the other arm changes nothing
                    install.exposures.append(
                        (
                            exposed.addingTimeInterval(2 * hour),
                            variant == "first_screen" ? "after_first_order" : "first_screen"
                        ))
                }
            }
            // Pre-granted (Android upgrade) or denied at first launch.
            let preGranted = random.chance(0.12)
            install.snapshots.append(Snapshot(at: firstSeen.addingTimeInterval(30), canDisplay: preGranted))
            if random.chance(0.2) {
                install.prompts.append(
                    Prompt(
                        at: firstSeen.addingTimeInterval(60), prompt: "primer", result: "granted",
                        placement: "first_screen"))
            }
            if random.chance(0.15) {
                install.prompts.append(
                    Prompt(
                        at: firstSeen.addingTimeInterval(90), prompt: "system", result: "already_determined",
                        placement: "first_screen"))
            }
            if random.chance(0.85) {
                let late = random.chance(0.05)
                let promptAt =
                    late
                    ? Fixture.time(2026, 11, 26)
                    : firstSeen.addingTimeInterval(Double(random.int(2 * 60..<(96 * 60))) * 60)
                let results =
                    platform == "ios"
                    ? ["granted", "granted", "denied", "provisional", "dismissed"]
                    : ["granted", "granted", "granted", "denied", "dismissed"]
                let result = results[random.int(0..<results.count)]
                let placements = ["first_screen", "after_first_order", "settings_banner"]
                install.prompts.append(
                    Prompt(at: promptAt, prompt: "system", result: result, placement: placements[random.int(0..<3)]))
                let shows = result == "granted" || result == "provisional"
                install.snapshots.append(
                    Snapshot(
                        at: promptAt.addingTimeInterval(60), canDisplay: shows || preGranted,
                        provisional: result == "provisional"))
                if shows, random.chance(0.3) {  // turned off within 10 days
                    install.snapshots.append(
                        Snapshot(at: promptAt.addingTimeInterval(Double(random.int(1..<240)) * hour), canDisplay: false)
                    )
                }
                if random.chance(0.6) {  // still reporting a week or more later
                    let gap = Double(random.int(7 * 24..<20 * 24)) * hour + (random.chance(0.1) ? 0 : 60)
                    install.snapshots.append(
                        Snapshot(at: promptAt.addingTimeInterval(gap), canDisplay: install.snapshots.last!.canDisplay))
                }
            }
            install.snapshots.sort { $0.at < $1.at }
            installs.append(install)
        }
        try write()
    }

    private mutating func write() throws {
        for install in installs {
            try fixture.installation(install.id, platform: install.platform, firstSeen: install.firstSeen)
            for e in install.exposures {
                try fixture.exposure(install.id, at: e.at, variant: e.variant, platform: install.platform)
            }
            for p in install.prompts {
                try fixture.prompt(
                    install.id, at: p.at, placement: p.placement, prompt: p.prompt, result: p.result,
                    platform: install.platform)
            }
            for s in install.snapshots {
                if install.platform == "ios" {
                    try fixture.snapshot(
                        install.id, at: s.at, platform: "ios",
                        authorization: s.provisional ? "provisional" : (s.canDisplay ? "authorized" : "denied"),
                        alert: s.provisional ? nil : (s.canDisplay ? "enabled" : "disabled"))
                } else {
                    try fixture.snapshot(install.id, at: s.at, platform: "android", enabled: s.canDisplay)
                }
            }
        }
    }

    /// The first shown system prompt at or before as_of.
    static func firstSystemPrompt(_ install: Install) -> Prompt? {
        install.prompts.filter { $0.prompt == "system" && $0.result != "already_determined" && $0.at <= asOf }.min {
            $0.at < $1.at
        }
    }

    static func canDisplay(_ install: Install, at time: Date) -> Bool {
        install.snapshots.last { $0.at <= time }?.canDisplay ?? false
    }

    /// The cohort of an installation in the window, or nil.
    static func cohort(_ install: Install, asTreated: Bool, experimentHasExposures: Bool = true) -> String? {
        if asTreated {
            guard let first = firstSystemPrompt(install), first.at >= from, first.at < to else { return nil }
            return first.placement
        }
        guard experimentHasExposures,
            let first = install.exposures.filter({ $0.at <= asOf }).min(by: { $0.at < $1.at }),
            first.at >= from, first.at < to
        else { return nil }
        return first.variant
    }

    /// Every cohort's expected figures.
    func expected(asTreated: Bool, platform: String? = nil) -> [String: Expected] {
        var result: [String: Expected] = [:]
        for install in installs where platform == nil || install.platform == platform {
            guard let cohort = Self.cohort(install, asTreated: asTreated) else { continue }
            var e = result[cohort, default: Expected()]
            e.installs += 1
            let now = Self.canDisplay(install, at: Self.asOf)
            if now { e.reached += 1 }
            if let first = Self.firstSystemPrompt(install) {
                e.prompted += 1
                e.hoursToPrompt.append(first.at.timeIntervalSince(install.firstSeen) / 3600)
                if first.result == "granted" {
                    e.granted += 1
                    let week = first.at.addingTimeInterval(7 * 86_400)
                    if install.snapshots.contains(where: { $0.at >= week && $0.at <= Self.asOf }) {
                        e.retainedEligible += 1
                        if Self.canDisplay(install, at: week) { e.retained += 1 }
                    }
                }
                if first.result == "provisional" { e.provisional += 1 }
            } else if now {
                e.grantedWithoutPrompt += 1
            }
            result[cohort] = e
        }
        return result
    }

    var query: ReportQuery { ReportQuery(app: Fixture.app, from: Self.from, to: Self.to, asOf: Self.asOf) }
}
