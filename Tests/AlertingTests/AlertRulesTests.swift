import Foundation
import PushLedgerRules
import TestSupport
import Testing

@testable import Reports

@Suite("Alert rules and evaluation (no database)")
struct AlertRulesTests {
    @Test("built-in defaults are metrics.md's table")
    func builtInDefaults() {
        let rules = AlertRuleSet.builtIn
        #expect(rules.confirmationWindow == .hours(24))
        #expect(rules.rules.map(\.kind) == AlertRuleKind.allCases)
        let silent = rules.rule(.silentLossUp)!
        #expect(
            (silent.minDeltaPoints, silent.maxP, silent.minVolume, silent.recent, silent.baseline) == (
                2, 0.01, 200, .hours(24), .days(7)
            ))
        #expect(rules.rule(.rejectionsUp)!.minDeltaPoints == 1)
        #expect(rules.rule(.confirmedDeliveryDown)!.minDeltaPoints == 5)
        let optIn = rules.rule(.optInDown)!
        #expect((optIn.minDeltaPoints, optIn.minVolume, optIn.recent, optIn.baseline) == (5, 100, .days(7), .days(28)))
        let stale = rules.rule(.ingestStale)!
        #expect((stale.threshold, stale.retireAfter) == (.minutes(60), .days(7)))
    }

    @Test("a rules file overrides only what it names")
    func overrides() throws {
        let json = """
            {"confirmation_window": "12h",
             "rules": {"silent_loss_up": {"min_delta_pp": 3.5, "max_p": 0.001, "min_volume": 500, "recent": "2d"},
                       "rejections_up": {"enabled": false},
                       "ingest_stale": {"threshold": "30m", "retire_after": "3d"}}}
            """
        let rules = try AlertRulesFile.parse(Data(json.utf8))
        #expect(rules.confirmationWindow == .hours(12))
        let silent = rules.rule(.silentLossUp)!
        #expect(
            (silent.minDeltaPoints, silent.maxP, silent.minVolume, silent.recent, silent.baseline) == (
                3.5, 0.001, 500, .days(2), .days(7)
            ))
        #expect(rules.rule(.rejectionsUp)!.enabled == false)
        #expect(rules.enabledRules.count == 4)
        #expect(rules.rule(.ingestStale)!.threshold == .minutes(30))
        #expect(rules.rule(.confirmedDeliveryDown) == AlertRule.builtIn(.confirmedDeliveryDown))
    }

    @Test("the example rules file in deploy/ is valid")
    func exampleFile() throws {
        let path = TestDatabase.repositoryRoot.appendingPathComponent("deploy/alert-rules.example.json").path
        let rules = try AlertRulesFile.load(path: path)
        #expect(rules != AlertRuleSet.builtIn)
    }

    @Test(
        "bad rules files are refused with a reason",
        arguments: [
            ("{", "not valid JSON"),
            ("[]", "top level must be an object"),
            (#"{"rulez": {}}"#, "unknown setting \"rulez\""),
            (#"{"rules": {"silent_loss": {}}}"#, "unknown rule \"silent_loss\""),
            (#"{"rules": {"silent_loss_up": {"max_p": 0.01, "max_p": 0.5}}}"#, "\"max_p\" is given twice"),
            (#"{"rules": {"silent_loss_up": {"min_delta": 2}}}"#, "unknown setting \"min_delta\""),
            (#"{"rules": {"silent_loss_up": {"threshold": "5m"}}}"#, "unknown setting \"threshold\""),
            (#"{"rules": {"ingest_stale": {"min_volume": 5}}}"#, "unknown setting \"min_volume\""),
            (#"{"rules": {"silent_loss_up": {"max_p": 0}}}"#, "max_p must be a number"),
            (#"{"rules": {"silent_loss_up": {"max_p": 1.5}}}"#, "max_p must be a number"),
            (#"{"rules": {"silent_loss_up": {"min_volume": 2.5}}}"#, "whole number"),
            (#"{"rules": {"silent_loss_up": {"min_volume": true}}}"#, "min_volume must be a number"),
            (#"{"rules": {"silent_loss_up": {"enabled": 1}}}"#, "enabled must be true or false"),
            (#"{"rules": {"silent_loss_up": {"recent": "24 hours"}}}"#, "silent_loss_up.recent"),
            (#"{"rules": {"silent_loss_up": {"recent": "0s"}}}"#, "longer than 0s"),
            (#"{"rules": {"silent_loss_up": "off"}}"#, "must be an object"),
            (#"{"rules": {"ingest_stale": {"threshold": "8d"}}}"#, "retire_after must be longer"),
        ])
    func badFiles(_ json: String, _ reason: String) {
        #expect {
            try AlertRulesFile.parse(Data(json.utf8))
        } throws: { error in
            guard let error = error as? AlertError else { return false }
            return error.kind == .rulesFile && error.description.contains(reason)
        }
    }

    @Test("a missing rules file is a rules-file error")
    func missingFile() {
        #expect(throws: AlertError.self) { try AlertRulesFile.load(path: "/nonexistent/rules.json") }
    }

    static let rule = AlertRule.builtIn(.silentLossUp)
    static let windows = AlertWindows(
        rule: rule, at: Date(timeIntervalSince1970: 1_793_491_200), confirmationWindow: .hours(24))

    static func judge(_ current: Rate, _ baseline: Rate, rule: AlertRule = rule) -> AlertFinding {
        AlertEvaluator.evaluate(
            AlertObservation(
                rule: rule.kind, appID: "a", slice: AlertSlice(["channel": "c"]), current: current, baseline: baseline),
            rule: rule, windows: windows)
    }

    @Test("clustered sends: the z-test's sample sizes are the installations")
    func installationsAreTheSampleSizes() {
        // 10% vs 7.5% on 1000 / 7000 sends fires per send; from 250 / 1750 devices (four sends
        // each, sharing their state) the same move is within noise.
        let perSend = Self.judge(Rate(100, of: 1000), Rate(525, of: 7000))
        #expect(perSend.firing && perSend.pValue! < 0.01)
        let clustered = AlertEvaluator.evaluate(
            AlertObservation(
                rule: .silentLossUp, appID: "a", slice: AlertSlice(["channel": "c"]),
                current: Rate(100, of: 1000), baseline: Rate(525, of: 7000), units: (250, 1750)),
            rule: Self.rule, windows: Self.windows)
        #expect(!clustered.firing && clustered.deltaPoints == perSend.deltaPoints)
        #expect(
            clustered.pValue
                == Statistics.oneSidedPValue(
                    Rate(100, of: 1000), versus: Rate(525, of: 7000), direction: .up,
                    sampleSizes: (250, 1750)))
        #expect(clustered.pValue! > 0.05)
    }

    @Test("windows: recent ends a confirmation window before `at`; baseline ends where recent starts")
    func windowPlacement() {
        let at = Date(timeIntervalSince1970: 1_793_491_200)
        #expect(Self.windows.recentTo == at - 86_400)
        #expect(Self.windows.recentFrom == at - 2 * 86_400)
        #expect(Self.windows.baselineTo == Self.windows.recentFrom)
        #expect(Self.windows.baselineFrom == at - 9 * 86_400)
    }

    @Test("fires only when delta, p-value and volume all hold")
    func firingConditions() {
        // 10% vs 5% on 1000 / 7000: +5 pp, p far below 0.01.
        let fires = Self.judge(Rate(100, of: 1000), Rate(350, of: 7000))
        #expect(fires.firing)
        #expect(abs(fires.deltaPoints! - 5) < 1e-9)
        #expect(
            fires.pValue! == Statistics.oneSidedPValue(Rate(100, of: 1000), versus: Rate(350, of: 7000), direction: .up)
        )
        // Same move, below min_volume.
        #expect(!Self.judge(Rate(19, of: 199), Rate(350, of: 7000)).firing)
        // Exactly at min_volume: allowed.
        #expect(Self.judge(Rate(40, of: 200), Rate(350, of: 7000)).firing)
        // Significant but under min_delta (1.5 pp on big volumes).
        let small = Self.judge(Rate(6_500, of: 100_000), Rate(35_000, of: 700_000))
        #expect(!small.firing && small.pValue! < 0.01)
        // Big move, not significant (p ≥ 0.01).
        let noisy = Self.judge(Rate(12, of: 200), Rate(7, of: 200))
        #expect(!noisy.firing && noisy.deltaPoints! >= 2 && noisy.pValue! >= 0.01)
        // The good direction never fires.
        #expect(!Self.judge(Rate(10, of: 1000), Rate(350, of: 7000)).firing)
        // No baseline volume: nothing to compare with.
        let unknown = Self.judge(Rate(500, of: 1000), Rate(0, of: 0))
        #expect(!unknown.firing && unknown.pValue == nil && unknown.deltaPoints == nil)
    }

    @Test("a down rule fires on a fall")
    func downDirection() {
        let rule = AlertRule.builtIn(.confirmedDeliveryDown)
        #expect(Self.judge(Rate(800, of: 1000), Rate(6_300, of: 7000), rule: rule).firing)
        #expect(!Self.judge(Rate(950, of: 1000), Rate(6_300, of: 7000), rule: rule).firing)
    }

    @Test("staleness: over the threshold fires; past retirement is not judged")
    func staleness() {
        let rule = AlertRule.builtIn(.ingestStale)
        let at = Date(timeIntervalSince1970: 1_793_491_200)
        #expect(AlertEvaluator.staleness(appID: "a", latest: at - 3_600, rule: rule, at: at)?.firing == false)
        #expect(AlertEvaluator.staleness(appID: "a", latest: at - 3_601, rule: rule, at: at)?.firing == true)
        #expect(AlertEvaluator.staleness(appID: "a", latest: at - 8 * 86_400, rule: rule, at: at) == nil)
        #expect(AlertEvaluator.staleness(appID: "a", latest: nil, rule: rule, at: at) == nil)
    }

    @Test("messages name the slice, both rates with volumes, the change, p and the command")
    func messageText() {
        let finding = Self.judge(Rate(100, of: 1000), Rate(350, of: 7000))
        let text = AlertText.message(finding, state: .firing)
        #expect(
            text.hasPrefix(
                """
                FIRING silent_loss_up a channel=c: silent_loss_rate 10.00% (100/1000 accepted) vs baseline 5.00% \
                (350/7000 accepted), +5.00 pp, p=
                """
            ))
        #expect(
            text.contains(
                """
                Investigate: pushledger report silent-loss --app a --from 2026-10-30T00:00:00.000Z --to \
                2026-10-31T00:00:00.000Z --by platform,channel
                """
            ))
        #expect(!text.contains("cause moved most"), "no cause counts, no cause named")

        // With cause counts: device_inactive went 1% → 4% of accepted, unexplained 2% → 1%, the others stayed.
        var withCauses = finding
        withCauses.causeMove = CauseMove(
            current: CauseCounts(causes: [.superseded: 10, .deviceInactive: 40, .unexplained: 10], accepted: 1000),
            baseline: CauseCounts(causes: [.superseded: 70, .deviceInactive: 70, .unexplained: 140], accepted: 7000))
        #expect(
            AlertText.message(withCauses, state: .firing).contains(
                """
                +5.00 pp, p=\(AlertText.pValue(finding.pValue!)); cause moved most: device_inactive 4.00% vs \
                1.00%, +3.00 pp; recent [
                """
            ))
        // A fall counts as a move; equal moves go to the earlier rule; nothing moved names nothing.
        #expect(
            CauseMove(
                current: CauseCounts(causes: [.expired: 10], accepted: 1000),
                baseline: CauseCounts(causes: [.expired: 50, .unexplained: 10], accepted: 1000))?.cause == .expired)
        #expect(
            CauseMove(
                current: CauseCounts(causes: [.appStopped: 20, .unexplained: 20], accepted: 1000),
                baseline: CauseCounts(causes: [.appStopped: 10, .unexplained: 10], accepted: 1000))?.cause
                == .appStopped)
        #expect(
            CauseMove(
                current: CauseCounts(causes: [.unexplained: 20], accepted: 1000),
                baseline: CauseCounts(causes: [.unexplained: 20], accepted: 1000)) == nil)
        #expect(
            CauseMove(
                current: CauseCounts(accepted: 0), baseline: CauseCounts(causes: [.unexplained: 20], accepted: 1000))
                == nil)
        #expect(AlertText.shellQuoted("it's") == #"'it'\''s'"#)
        #expect(AlertText.pValue(0.0042) == "0.0042")
        #expect(AlertText.pValue(1.23e-30) == "1.2e-30")
    }

    @Test("exit status: trouble wins over firing")
    func exitStatus() {
        let firing = AlertCheckResult(
            at: Date(), findings: [Self.judge(Rate(100, of: 1000), Rate(350, of: 7000))], transitions: [])
        #expect(firing.exitStatus == .firing)
        #expect(AlertCheckOutcome(result: firing, problems: []).exitStatus == .firing)
        #expect(AlertCheckOutcome(result: firing, problems: [AlertError(.webhook, "x")]).exitStatus == .trouble)
        #expect(
            AlertCheckOutcome(result: AlertCheckResult(at: Date(), findings: [], transitions: []), problems: [])
                .exitStatus.rawValue == 0)
        #expect(AlertExitStatus.trouble.rawValue == 2)
    }
}
