#if canImport(UserNotifications)
    import Foundation
    import UserNotifications

    // The Apple adapter: reads UserNotifications objects into the core's plain values
    // (AppleMapping.swift, tested on Linux) and records them. Nothing here is compiled on the
    // Linux machines this package is tested on; every API name was checked against Apple's
    // documentation (docs/integrations/ios.md lists them). No swizzling: the app calls these.

    extension AppleNotificationSettings {
        /// Copies `UNNotificationSettings`; the iOS 15 / macOS 12 settings only where they exist.
        public init(_ settings: UNNotificationSettings) {
            self.init(
                authorizationStatus: settings.authorizationStatus.rawValue,
                alertSetting: settings.alertSetting.rawValue,
                soundSetting: settings.soundSetting.rawValue, badgeSetting: settings.badgeSetting.rawValue,
                lockScreenSetting: settings.lockScreenSetting.rawValue,
                notificationCenterSetting: settings.notificationCenterSetting.rawValue,
                alertStyle: settings.alertStyle.rawValue)
            if #available(iOS 15.0, macOS 12.0, *) {
                timeSensitiveSetting = settings.timeSensitiveSetting.rawValue
                scheduledDeliverySetting = settings.scheduledDeliverySetting.rawValue
            }
        }
    }

    extension PushLedger {
        /// Reads the current notification settings and records a snapshot. Call at launch and after
        /// every return to the foreground (after `didBecomeActive`: read earlier, iOS can still
        /// report the settings from before the user changed them).
        @discardableResult
        public func recordNotificationSettings(center: UNUserNotificationCenter = .current()) async throws -> UUID {
            let settings = await center.notificationSettings()
            return try record(.notificationSettings(AppleNotificationSettings(settings).snapshot))
        }

        /// `requestAuthorization(options:)` that records the prompt: its `placement`, and how it
        /// ended (`granted`, `provisional`, `denied`, or `already_determined` when iOS showed nothing).
        /// Returns what iOS returned.
        public func requestAuthorization(
            options: UNAuthorizationOptions, placement: String, center: UNUserNotificationCenter = .current()
        ) async throws -> Bool {
            let before =
                AppleNotificationSettings.status(await center.notificationSettings().authorizationStatus.rawValue)
                ?? .notDetermined
            let granted: Bool
            do {
                granted = try await center.requestAuthorization(options: options)
            } catch {
                granted = false
            }
            let after =
                AppleNotificationSettings.status(await center.notificationSettings().authorizationStatus.rawValue)
                ?? .notDetermined
            let result = SystemPromptOutcome.result(
                before: before, after: after, granted: granted, requestedProvisional: options.contains(.provisional))
            try record(.permissionPrompt(placement: placement, prompt: .system, result: result))
            try record(.notificationSettings(AppleNotificationSettings(await center.notificationSettings()).snapshot))
            return granted
        }

        /// Records a tap from `userNotificationCenter(_:didReceive:withCompletionHandler:)` or from
        /// `UIScene.ConnectionOptions.notificationResponse`, once the app knows where the link routed
        /// (`landed`). Returns nil for a dismissal or a notification that carries no `notification_id`.
        @discardableResult
        public func recordOpen(
            _ response: UNNotificationResponse, landed: Landing?, keys: NotificationPayload.Keys = .init()
        ) throws -> UUID? {
            let payload = NotificationPayload(userInfo: response.notification.request.content.userInfo, keys: keys)
            let action: String? =
                switch response.actionIdentifier {
                case UNNotificationDefaultActionIdentifier: "default"
                case UNNotificationDismissActionIdentifier: nil
                default: response.actionIdentifier
                }
            guard let event = payload.open(action: action, landed: landed) else { return nil }
            return try record(event)
        }

        /// For the Notification Service Extension's `didReceive(_:withContentHandler:)`: journals the
        /// receipt (fsynced) and only then returns, so call it before `contentHandler`. It never
        /// uploads (the extension is killed at 24 MB / 30 s); the app's next flush sends it.
        @discardableResult
        public func recordReceipt(_ request: UNNotificationRequest, keys: NotificationPayload.Keys = .init()) -> UUID? {
            recordReceipt(of: NotificationPayload(userInfo: request.content.userInfo, keys: keys), displayed: nil)
        }
    }
#endif

#if canImport(UIKit) && !os(watchOS)
    import UIKit

    extension PushLedger {
        /// Snapshots the settings and flushes (when no backoff is running) on every
        /// `UIApplication.didBecomeActiveNotification`. Keep the returned token while observing.
        @MainActor
        public func observeForeground() -> NSObjectProtocol {
            NotificationCenter.default.addObserver(
                forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main
            ) { [self] _ in
                Task {
                    _ = try? await recordNotificationSettings()
                    _ = try? await flushIfDue()
                }
            }
        }
    }
#endif
