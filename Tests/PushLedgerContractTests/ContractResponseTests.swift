import Testing

@testable import PushLedgerContract
@testable import PushLedgerSupport

@Suite struct ContractResponseTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func acceptedWithRejections() {
        let rejected = [
            Rejection(index: 2, eventID: "c2b0-x", code: .tooOld, message: "sent_at \"old\"\nline", rawJSON: "{}"),
            Rejection(index: 5, eventID: nil, code: .missingField, message: "missing field \"token\"", rawJSON: "{}"),
        ]
        let body = IngestResponse.accepted(WriteOutcome(accepted: 3, duplicates: 1), rejected: rejected)
        #expect(
            text(body)
                == #"{"accepted":3,"duplicates":1,"rejected":[{"index":2,"event_id":"c2b0-x","error":"too_old","#
                + #""message":"sent_at \"old\"\nline"},{"index":5,"event_id":null,"error":"missing_field","#
                + #""message":"missing field \"token\""}]}"#
        )
    }

    @Test func acceptedWithoutRejections() {
        #expect(
            text(IngestResponse.accepted(WriteOutcome(accepted: 0, duplicates: 0), rejected: []))
                == #"{"accepted":0,"duplicates":0,"rejected":[]}"#)
    }

    @Test func errorBodies() {
        #expect(
            text(IngestResponse.error(code: "app_mismatch", message: "a \"b\""))
                == #"{"error":"app_mismatch","message":"a \"b\""}"#)
        let envelope = EnvelopeError(status: 413, code: "too_many_events", message: "é\u{1}")
        #expect(text(IngestResponse.error(envelope)) == #"{"error":"too_many_events","message":"é\u0001"}"#)
        #expect(envelope.description == "413 too_many_events: é\u{1}")
    }

    @Test func aValidatedRequestAnswersInTheContractsShape() throws {
        let result = try Fixture.telemetry(
            Fixture.envelope(events: [Fixture.validEvent("push_token"), ["type": "x", "event_id": "id-1"]]))
        let body = IngestResponse.accepted(
            WriteOutcome(accepted: result.events.count, duplicates: 0), rejected: result.rejections)
        #expect(
            text(body)
                == #"{"accepted":1,"duplicates":0,"rejected":[{"index":1,"event_id":"id-1","error":"unknown_type","#
                + #""message":"unknown event type \"x\""}]}"#
        )
        // The body is itself valid JSON with the documented members.
        let parsed = try JSONParser.parseValue(body)
        #expect(parsed.objectValue?.members.map(\.key) == ["accepted", "duplicates", "rejected"])
    }
}
