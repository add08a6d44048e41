import Foundation
import PushLedgerSupport

/// The envelope fields recorded with an event (the app may update between record and upload).
struct JournalContext: Sendable, Hashable {
    var appVersion: String?
    var osVersion: String?
    var sdkInt: Int?

    var jsonValue: JSONValue {
        var o = JSONObject()
        o.appendIfPresent("app_version", appVersion.map(JSONValue.string))
        o.appendIfPresent("os_version", osVersion.map(JSONValue.string))
        o.appendIfPresent("sdk_int", sdkInt.map(JSONValue.int))
        return .object(o)
    }

    init(appVersion: String?, osVersion: String?, sdkInt: Int?) {
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.sdkInt = sdkInt
    }

    init(_ value: JSONValue) {
        appVersion = value["app_version"]?.stringValue
        osVersion = value["os_version"]?.stringValue
        sdkInt = value["sdk_int"]?.numberValue?.int64Value.map(Int.init)
    }
}

/// One journalled event: its file and, once read, its context and event JSON.
struct JournalEntry: Sendable, Equatable {
    /// `<microseconds, 16 hex digits>-<event id>.event`: names sort in record order.
    var name: String
    var bytes: Int
}

/// The on-disk journal: one file per event, published by write + fsync + rename, so any number
/// of processes record without a lock and a SIGKILL leaves either the whole event or nothing.
/// Uploading and pruning happen under one `flock`, so exactly one process at a time removes
/// files, and only after the server has answered for them. Layout under `<storage>/PushLedger/`:
/// `installation-id`, `events/`, `incoming/` (files being written), `flush.lock`, `dropped-count`.
struct Journal: Sendable {
    let root: String
    var events: String { root + "/events" }
    var incoming: String { root + "/incoming" }

    init(storageDirectory: URL) throws(PushLedgerError) {
        root = storageDirectory.appendingPathComponent("PushLedger").path
        for directory in [root, root + "/events", root + "/incoming"] {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .storage(operation: "mkdir", path: directory, detail: "\(error)")
            }
        }
        #if canImport(Darwin)
            try Self.protect(directories: [root, events, incoming], root: root)
        #endif
    }

    /// The directory's installation id: minted by the first process that asks, kept for ever.
    func installationID() throws(PushLedgerError) -> UUID {
        let path = root + "/installation-id"
        if let existing = FileManager.default.contents(atPath: path), let id = Self.uuid(existing) { return id }
        let minted = Array(UUID().uuidString.lowercased().utf8)
        let stored = try DurableFile.createOnce(minted, path: path, temporary: temporaryName(), directory: root)
        guard let id = Self.uuid(Data(stored)) else { throw .journal(operation: "parse", path: path, errno: EINVAL) }
        return id
    }

    /// Publishes one event; returns once it is durable.
    func append(eventID: UUID, at: Date, context: JournalContext, event: [UInt8]) throws(PushLedgerError) {
        var bytes = context.jsonValue.serialized()
        bytes.append(0x0A)
        bytes += event
        bytes.append(0x0A)
        let micros = UInt64(max(0, RFC3339.microseconds(of: at)))
        let name =
            String(repeating: "0", count: 16 - String(micros, radix: 16).count) + String(micros, radix: 16)
            + "-" + eventID.uuidString.lowercased() + ".event"
        try DurableFile.publish(bytes, temporary: temporaryName(), final: events + "/" + name, directory: events)
    }

    /// The events journalled now, oldest first.
    func entries() -> [JournalEntry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: events)) ?? []
        return names.filter { $0.hasSuffix(".event") }.sorted().map { name in
            let size = (try? FileManager.default.attributesOfItem(atPath: events + "/" + name)[.size] as? Int) ?? 0
            return JournalEntry(name: name, bytes: size)
        }
    }

    /// The entry's context and event JSON; nil when the file is gone or not a journal record.
    func read(_ entry: JournalEntry) -> (context: JournalContext, event: JSONValue)? {
        guard let data = FileManager.default.contents(atPath: events + "/" + entry.name) else { return nil }
        let lines = [UInt8](data).split(separator: 0x0A, omittingEmptySubsequences: true)
        guard lines.count == 2, let context = try? JSONParser.parseValue(Array(lines[0])),
            let event = try? JSONParser.parseValue(Array(lines[1])), event.objectValue != nil
        else { return nil }
        return (JournalContext(context), event)
    }

    /// Removes answered (or unreadable) entries, durably.
    func remove(_ entries: [JournalEntry]) throws(PushLedgerError) {
        guard !entries.isEmpty else { return }
        for entry in entries { try DurableFile.remove(events + "/" + entry.name) }
        try DurableFile.syncDirectory(events)
    }

    func contains(_ entry: JournalEntry) -> Bool { FileManager.default.fileExists(atPath: events + "/" + entry.name) }

    /// The lock every flusher and pruner holds; nil while another process (or flush) has it.
    func tryLock() throws(PushLedgerError) -> FileLock? { try FileLock.tryLock(root + "/flush.lock") }

    /// Under the lock: drops the oldest entries past either cap and adds them to the persistent
    /// drop count; removes `incoming/` files left by writers killed over an hour ago.
    func prune(maxEvents: Int, maxBytes: Int, now: Date = Date()) throws(PushLedgerError) -> Int {
        let all = entries()
        var total = all.reduce(0) { $0 + $1.bytes }
        var drop: [JournalEntry] = []
        for entry in all where all.count - drop.count > maxEvents || total > maxBytes {
            drop.append(entry)
            total -= entry.bytes
        }
        try remove(drop)
        if !drop.isEmpty { try addDropped(drop.count) }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: incoming)) ?? [] {
            let path = incoming + "/" + name
            if let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > 3600
            {
                try DurableFile.remove(path)
            }
        }
        return drop.count
    }

    /// Events dropped by the cap since the directory was created.
    var droppedCount: Int {
        FileManager.default.contents(atPath: root + "/dropped-count").flatMap {
            Int(String(decoding: $0, as: UTF8.self))
        } ?? 0
    }

    private func addDropped(_ count: Int) throws(PushLedgerError) {
        let bytes = Array(String(droppedCount + count).utf8)
        try DurableFile.publish(bytes, temporary: temporaryName(), final: root + "/dropped-count", directory: root)
    }

    private func temporaryName() -> String { incoming + "/" + UUID().uuidString.lowercased() + ".partial" }

    private static func uuid(_ data: Data) -> UUID? {
        ContractFormat.uuid(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
