import Foundation
import Postgres

/// Alert state in Postgres: `alert_states` holds what is firing now, `alert_transitions` every
/// change. A check records only changes, so a repeated check with the same findings records
/// (and notifies) nothing.
public enum AlertStateStore {
    struct Key: Hashable {
        var rule: String
        var appID: String
        var slice: AlertSlice
    }

    /// Compares `findings` (of the rules in `evaluated`) with the stored state and records the
    /// changes at `at`. Runs inside the check's transaction. A firing alert of an evaluated rule
    /// whose slice is no longer firing (or no longer seen) resolves; states of rules not
    /// evaluated are left alone.
    static func record(
        findings: [AlertFinding], evaluated: Set<AlertRuleKind>, at: Date, connection: Connection
    ) throws -> [AlertTransition] {
        let stored = try firingKeys(connection)
        var records: [AlertRecord] = []
        var seen: [Key: AlertFinding] = [:]
        for finding in findings {
            let key = Key(rule: finding.rule.rawValue, appID: finding.appID, slice: finding.slice)
            seen[key] = finding
            if finding.firing && !stored.contains(key) {
                records.append(AlertRecord(finding, state: .firing, at: at))
            }
        }
        for key in stored.sorted(by: { ($0.rule, $0.appID, $0.slice.label) < ($1.rule, $1.appID, $1.slice.label) }) {
            guard let kind = AlertRuleKind(rawValue: key.rule), evaluated.contains(kind) else { continue }
            if let finding = seen[key] {
                if !finding.firing { records.append(AlertRecord(finding, state: .resolved, at: at)) }
            } else {
                records.append(resolvedUnseen(key, kind: kind, at: at))
            }
        }
        return records.isEmpty ? [] : try insert(records, connection)
    }

    /// The transitions at or after `since` (all when nil), oldest first.
    public static func history(since: Date?, connection: Connection) throws(AlertError) -> [AlertTransition] {
        do {
            return try transitions(
                connection.query(
                    """
                    select \(unsafeRaw: columns) from alert_transitions
                     where \(since) is null or at >= \(since)
                     order by at, id
                    """))
        } catch {
            throw AlertError(error)
        }
    }

    private static let columns = """
        id, rule, app_id, slice::text as slice, state, at, current_rate, baseline_rate, current_volume,
        baseline_volume, delta_pp, p_value, message
        """

    /// A firing slice that the check no longer sees at all (no volume in either window, or an
    /// app retired from ingest_stale): resolved without figures.
    private static func resolvedUnseen(_ key: Key, kind: AlertRuleKind, at: Date) -> AlertRecord {
        var record = AlertRecord(
            AlertFinding(rule: kind, appID: key.appID, slice: key.slice, firing: false), state: .resolved, at: at)
        let subject = ["RESOLVED", key.rule, key.appID, key.slice.label].filter { !$0.isEmpty }.joined(separator: " ")
        record.transition.message =
            kind == .ingestStale
            ? "\(subject): no telemetry within the retirement period; the app is retired from this rule"
            : "\(subject): the slice has no volume in the recent or baseline window any more"
        return record
    }

    private static func firingKeys(_ connection: Connection) throws -> Set<Key> {
        var keys: Set<Key> = []
        for row in try connection.query("select rule, app_id, slice::text as slice from alert_states") {
            keys.insert(
                Key(
                    rule: try row.decode("rule"), appID: try row.decode("app_id"), slice: try slice(row.decode("slice"))
                ))
        }
        return keys
    }

    /// One statement: insert the transitions, then move `alert_states` along with them.
    private static func insert(_ records: [AlertRecord], _ connection: Connection) throws -> [AlertTransition] {
        try transitions(
            connection.query(
                """
                with input as (
                    select * from jsonb_to_recordset(\(AlertRecord.json(records))::jsonb) as t(
                        rule text, app_id text, slice jsonb, state text, at timestamptz, current_rate float8,
                        baseline_rate float8, current_volume int8, baseline_volume int8, delta_pp float8,
                        p_value float8, message text)
                ), inserted as (
                    insert into alert_transitions (rule, app_id, slice, state, at, current_rate, baseline_rate,
                                                   current_volume, baseline_volume, delta_pp, p_value, message)
                    select rule, app_id, slice, state, at, current_rate, baseline_rate, current_volume,
                           baseline_volume, delta_pp, p_value, message
                      from input order by rule, app_id, slice
                    returning *
                ), cleared as (
                    delete from alert_states s using inserted i
                     where i.state = 'resolved' and s.rule = i.rule and s.app_id = i.app_id and s.slice = i.slice
                ), added as (
                    insert into alert_states (rule, app_id, slice, firing_since, transition_id)
                    select rule, app_id, slice, at, id from inserted where state = 'firing'
                )
                select \(unsafeRaw: columns) from inserted order by id
                """))
    }

    private static func transitions(_ rows: QueryResult) throws(PostgresError) -> [AlertTransition] {
        var result: [AlertTransition] = []
        for row in rows {
            let state: String = try row.decode("state")
            result.append(
                AlertTransition(
                    id: try row.decode("id"), rule: try row.decode("rule"), appID: try row.decode("app_id"),
                    slice: try slice(row.decode("slice")), state: AlertState(rawValue: state) ?? .resolved,
                    at: try row.decode("at"), currentRate: try row.decode("current_rate"),
                    baselineRate: try row.decode("baseline_rate"), currentVolume: try row.decode("current_volume"),
                    baselineVolume: try row.decode("baseline_volume"), deltaPoints: try row.decode("delta_pp"),
                    pValue: try row.decode("p_value"), message: try row.decode("message")))
        }
        return result
    }

    /// A stored slice: a JSON object of strings (jsonb reorders keys, so compare as a dictionary).
    private static func slice(_ text: String) throws(PostgresError) -> AlertSlice {
        guard let dimensions = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8)) else {
            throw PostgresError(code: .decoding, message: "alert slice is not an object of strings: \(text)")
        }
        return AlertSlice(dimensions)
    }
}
