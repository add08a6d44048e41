import Foundation
import Store
import Testing

@testable import Simulator

/// `simulate --fcm-delivery-data`: FCM's view of the fleet's FCM sends, in the Data API's shape.
@Suite struct FCMDeliveryViewTests {
    @Test func thePageCountsEveryAcceptedFCMSendAndImportsAsDataAPIEntries() throws {
        let config = Fixtures.config(installs: 300)
        var accepted = 0, inactive = 0
        var view = FCMDeliveryView()
        for index in 0..<config.installs {
            let installation = GeneratedInstallation(index: index, config: config)
            accepted += installation.sends.filter { $0.provider == .fcm && $0.status == 200 }.count
            inactive += installation.sends.filter { $0.provider == .fcm && $0.fate == .inactive }.count
            view.add(installation)
        }
        #expect(accepted > 100)
        #expect(Simulation.generate(config).truth.fcmDelivery == view, "the truth carries the same view")

        let page = view.dataAPIPage(fcmAppID: FCMDeliveryView.simulatedAppID)
        let entries = try FCMDeliveryData.entries(in: page, fcmAppID: FCMDeliveryView.simulatedAppID)
        #expect(!entries.isEmpty)
        let json = try JSONSerialization.jsonObject(with: Data(page)) as? [String: Any]
        let list = try #require(json?["androidDeliveryData"] as? [[String: Any]])
        let counted = list.compactMap { ($0["data"] as? [String: Any])?["countMessagesAccepted"] as? String }.compactMap
        { Int($0) }
        #expect(counted.reduce(0, +) == accepted)
        var named = Set<String>()
        for entry in list {
            let outcomes = try #require(
                (entry["data"] as? [String: Any])?["messageOutcomePercents"] as? [String: Double])
            let delivered = try #require(outcomes["delivered"])
            #expect(delivered >= 0 && delivered <= 100)
            #expect(abs(outcomes.values.reduce(0, +) - 100) < 0.3, "the outcomes cover every accepted message")
            named.formUnion(outcomes.filter { $0.value > 0 }.keys)
        }
        #expect(
            named.isSuperset(of: ["collapsed", "droppedAppForceStopped", "droppedTtlExpired"]),
            "the fleet's collapse ids, force-stops and expiries show on FCM's side: \(named.sorted())")
        #expect(named.contains("droppedDeviceInactive") == (inactive > 0), "sends to uninstalled apps: \(inactive)")
    }
}
