import Foundation
import Postgres

/// What one `alert check` found and changed.
public struct AlertCheckResult: Sendable {
    /// The evaluation time.
    public var at: Date
    /// Every slice judged by the enabled rules, firing or not.
    public var findings: [AlertFinding]
    /// The state changes this check recorded (empty when nothing changed since the last check).
    public var transitions: [AlertTransition]

    /// The findings that fire now.
    public var firing: [AlertFinding] { findings.filter(\.firing) }

    /// 1 when anything fires, else 0 (trouble is reported by `AlertCheckOutcome`).
    public var exitStatus: AlertExitStatus { firing.isEmpty ? .noneFiring : .firing }
}

/// A check with its notifications: the result, every problem met, and the exit status.
public struct AlertCheckOutcome: Sendable {
    /// nil when the check itself failed (database unreachable).
    public var result: AlertCheckResult?
    /// Trouble to report on stderr: a failed check, or each undelivered webhook post.
    public var problems: [AlertError]

    /// 2 when there was any trouble, else the result's 0 or 1.
    public var exitStatus: AlertExitStatus {
        guard problems.isEmpty, let result else { return .trouble }
        return result.exitStatus
    }
}

/// Evaluates the rules of docs/metrics.md "Regression alerts" against the database.
public struct AlertChecker: Sendable {
    public var rules: AlertRuleSet

    public init(rules: AlertRuleSet = .builtIn) {
        self.rules = rules
    }

    /// Evaluates every enabled rule as of `at` and records the transitions, in one transaction
    /// that concurrent checks take in turns. With `reading` (a hot standby) the rules are
    /// evaluated there, before the transaction; the alert state is always on `connection`.
    public func check(
        connection: Connection, reading: Connection? = nil, at: Date
    ) throws(AlertError) -> AlertCheckResult {
        do {
            let standbyFindings = try reading.map { reading in try reading.transaction { try findings($0, at: at) } }
            return try connection.transaction { connection in
                // One check at a time.
                _ = try connection.query("select pg_advisory_xact_lock(hashtext('pushledger_alert_check'))")
                let findings = try standbyFindings ?? findings(connection, at: at)
                let transitions = try AlertStateStore.record(
                    findings: findings, evaluated: Set(rules.enabledRules.map(\.kind)), at: at, connection: connection)
                return AlertCheckResult(at: at, findings: findings, transitions: transitions)
            }
        } catch let error as PostgresError {
            throw AlertError(error)
        } catch {
            throw AlertError(.database, "alert check failed", detail: "\(error)")
        }
    }

    /// Every enabled rule's findings, inside the caller's transaction (read-only: works on a standby).
    private func findings(_ connection: Connection, at: Date) throws -> [AlertFinding] {
        // No JIT: compiling the outcome engine's large plans costs more than running them
        // (seconds per query on a busy machine).
        try connection.execute("set local jit = off")
        var findings: [AlertFinding] = []
        for rule in rules.enabledRules {
            findings += try AlertQueries.findings(
                for: rule, at: at, confirmationWindow: rules.confirmationWindow, connection: connection)
        }
        return findings
    }

    /// `check`, then the webhook (when given) for each transition; never throws: trouble is in
    /// the outcome's problems and exit status.
    public func run(
        connection: Connection, reading: Connection? = nil, at: Date, webhook: AlertWebhook? = nil
    ) -> AlertCheckOutcome {
        let result: AlertCheckResult
        do {
            result = try check(connection: connection, reading: reading, at: at)
        } catch {
            return AlertCheckOutcome(result: nil, problems: [error])
        }
        return AlertCheckOutcome(result: result, problems: webhook?.post(result.transitions) ?? [])
    }
}
