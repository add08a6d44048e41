import Foundation
import Store
import Testing

@testable import Simulator

/// `simulate --fcm-delivery-data`: FCM's view of the fleet's FCM sends, in the Data API's shape.
@Suite struct FCMDeliveryViewTests {
    @Test func thePageCountsEveryAcceptedFCMSendAndImportsAsDataAPIEntries() throws {
        let config = Fixtures.config(installs: 300)
        var accepted = 0
        var view = FCMDeliveryView()
        for index in 0..<config.installs {
            let installation = GeneratedInstallation(index: index, config: config)
            accepted += installation.sends.filter { $0.provider == .fcm && $0.status == 200 }.count
            view.add(installation, endMs: config.endMs)
        }
        #expect(accepted > 100)
        #expect(Simulation.generate(config).truth.fcmDelivery == view, "the truth carries the same view")

        let page = view.dataAPIPage(fcmAppID: FCMDeliveryView.simulatedAppID)
        let entries = try FCMDeliveryData.entries(in: page, fcmAppID: FCMDeliveryView.simulatedAppID)
        #expect(!entries.isEmpty)
        let json = try JSONSerialization.jsonObject(with: Data(page)) as? [String: Any]
        let list = try #require(json?["androidDeliveryData"] as? [[String: Any]])
        let counted = list.compactMap { ($0["data"] as? [String: Any])?["countMessagesAccepted"] as? String }.compactMap { Int($0) }
        #expect(counted.reduce(0, +) == accepted)
        for entry in list {
            let outcomes = try #require((entry["data"] as? [String: Any])?["messageOutcomePercents"] as? [String: Double])
            let delivered = try #require(outcomes["delivered"])
            #expect(delivered >= 0 && delivered <= 100)
            #expect(abs(outcomes.values.reduce(0, +) - 100) < 0.3, "the outcomes cover every accepted message")
        }
    }
}
