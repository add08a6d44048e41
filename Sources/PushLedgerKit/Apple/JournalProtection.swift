#if canImport(Darwin)
    import Foundation

    // Apple platforms only (not compiled on Linux; the API names were checked against Apple's
    // documentation: FileAttributeKey.protectionKey, FileProtectionType
    // .completeUntilFirstUserAuthentication, URLResourceValues.isExcludedFromBackup,
    // URL.setResourceValues(_:)).

    extension Journal {
        /// The journal holds installation ids, push tokens and what the user allowed: its folders
        /// get the data protection class "complete until first user authentication" (encrypted
        /// until the device is first unlocked after boot, then readable by background uploads;
        /// files created inside take their folder's class), and the whole journal is excluded from
        /// backups, so a device restored from another's backup never re-sends that device's events.
        /// Set at every start: some file operations reset the backup flag.
        static func protect(directories: [String], root: String) throws(PushLedgerError) {
            #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
                for directory in directories {
                    do {
                        try FileManager.default.setAttributes(
                            [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication],
                            ofItemAtPath: directory)
                    } catch {
                        throw .storage(operation: "protect", path: directory, detail: "\(error)")
                    }
                }
            #endif
            var url = URL(fileURLWithPath: root, isDirectory: true)
            var values = URLResourceValues()
            values.isExcludedFromBackup = true
            do {
                try url.setResourceValues(values)
            } catch {
                throw .storage(operation: "exclude from backup", path: root, detail: "\(error)")
            }
        }
    }
#endif
