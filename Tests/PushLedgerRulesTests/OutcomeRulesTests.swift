import Foundation
import Testing

@testable import PushLedgerRules

@Suite("Outcome rules 1–9, in order")
struct OutcomeRulesTests {
    let asOf = Date(timeIntervalSince1970: 1_800_000_000)
    var old: Date { asOf.addingTimeInterval(-2 * 86_400) }
    var young: Date { asOf.addingTimeInterval(-3_600) }
    let shown = DisplayState(canDisplay: true)
    let hidden = DisplayState(canDisplay: false)
    let promotionsBlocked = DisplayState(canDisplay: true, blockedChannels: ["promotions"])

    func classify(
        status: Int = 200, sentAt: Date? = nil, channel: String = "promotions", state: DisplayState?,
        receipts: [Receipt] = [], instrumented: Bool = true
    ) -> SendOutcome {
        OutcomeRules.classify(
            status: status, sentAt: sentAt ?? old, channel: channel, state: state, receipts: receipts,
            instrumented: instrumented, asOf: asOf)
    }
    func receipt(_ kind: Receipt.Kind, after: TimeInterval = 60) -> Receipt {
        Receipt(kind: kind, at: old.addingTimeInterval(after))
    }

    @Test func rule1RejectedBeatsEverything() {
        for status in [0, 400, 410, 429, 503] {
            #expect(classify(status: status, state: shown, receipts: [receipt(.opened)]) == .rejected)
        }
        #expect(classify(status: 204, state: shown, receipts: [receipt(.opened)]) == .opened)
    }

    @Test func rule2OpenedBeatsReceivedAndBlocked() {
        #expect(classify(state: hidden, receipts: [receipt(.received(displayed: true)), receipt(.opened)]) == .opened)
    }

    @Test func rule3ReceivedEvenWhenSnapshotSaysBlocked() {
        #expect(classify(state: hidden, receipts: [receipt(.received(displayed: nil))]) == .received)
        #expect(classify(state: promotionsBlocked, receipts: [receipt(.received(displayed: true))]) == .received)
    }

    @Test func receiptsAfterAsOfAreIgnored() {
        let late = Receipt(kind: .opened, at: asOf.addingTimeInterval(1))
        #expect(classify(state: shown, receipts: [late]) == .unconfirmed)
        let atAsOf = Receipt(kind: .opened, at: asOf)
        #expect(classify(state: shown, receipts: [atAsOf]) == .opened)
    }

    @Test func rule4PendingOnlyWithoutAnyReceipt() {
        #expect(classify(sentAt: young, state: hidden) == .pending)
        #expect(classify(sentAt: young, state: nil, instrumented: false) == .pending)
        // a displayed:false receipt decides the send even inside the window
        let hiddenReceipt = Receipt(kind: .received(displayed: false), at: young.addingTimeInterval(60))
        #expect(classify(sentAt: young, state: hidden, receipts: [hiddenReceipt]) == .blockedApp)
        // the window boundary itself is decided (strictly later is pending)
        #expect(classify(sentAt: asOf.addingTimeInterval(-86_400), state: shown) == .unconfirmed)
    }

    @Test func rule5BlockedApp() {
        #expect(classify(state: hidden) == .blockedApp)
        #expect(classify(state: DisplayState(canDisplay: false, blockedChannels: ["promotions"])) == .blockedApp)
    }

    @Test func rule6BlockedChannelOnlyForTheSendsChannel() {
        #expect(classify(channel: "promotions", state: promotionsBlocked) == .blockedChannel)
        #expect(classify(channel: "orders", state: promotionsBlocked) == .unconfirmed)
    }

    @Test func rule7HiddenReceiptIsReceivedWhenNothingShowedBlocked() {
        #expect(classify(state: shown, receipts: [receipt(.received(displayed: false))]) == .received)
        #expect(classify(state: promotionsBlocked, receipts: [receipt(.received(displayed: false))]) == .blockedChannel)
        #expect(classify(state: nil, receipts: [receipt(.received(displayed: false))]) == .received)
    }

    @Test func rule8UnknownStateOrUninstrumented() {
        #expect(classify(state: nil) == .unattributed)
        #expect(classify(state: shown, instrumented: false) == .unattributed)
        // blocked is known even without instrumentation
        #expect(classify(state: hidden, instrumented: false) == .blockedApp)
    }

    @Test func rule9Unconfirmed() {
        #expect(classify(state: shown) == .unconfirmed)
        #expect(SendOutcome.unconfirmed.isSilentLoss && SendOutcome.blockedApp.isSilentLoss)
        #expect(!SendOutcome.unattributed.isSilentLoss && !SendOutcome.pending.isSilentLoss)
    }

    @Test func customConfirmationWindow() {
        let outcome = OutcomeRules.classify(
            status: 200, sentAt: old, channel: "orders", state: shown, receipts: [], instrumented: true,
            asOf: asOf, confirmationWindow: 3 * 86_400)
        #expect(outcome == .pending)
    }
}
