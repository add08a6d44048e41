package dev.pushledger.sdk;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Web Push (contract v1.3) bodies beyond the vectors, each with the server's answer in short:
 * ValidationTests holds the core's validator to these answers, and VectorTests holds the real
 * server to them, so the two agree on the edges of the rules too.
 */
final class WebCases {
    private WebCases() {}

    static final String WEB = "\"platform\":\"web\",\"browser\":\"firefox\",\"browser_version\":\"133.0\"";
    static final String ANDROID = "\"platform\":\"android\",\"sdk_int\":34";
    static final String IOS = "\"platform\":\"ios\"";
    static final String BAD_ENDPOINT = "invalid_field: invalid field \"token\": expected an https push subscription endpoint (at most 2048 bytes)";

    /** One body and the answer in short ({@link #summary}). */
    static final class Case {
        final String body;
        final String expected;

        Case(String body, String expected) {
            this.body = body;
            this.expected = expected;
        }
    }

    /** Every case, its events at {@code nowMillis}. */
    static List<Case> all(long nowMillis) {
        List<Case> cases = new ArrayList<>();
        String at = Rfc3339.format(nowMillis * 1000);
        String exposure = "\"type\":\"experiment_exposure\",\"experiment\":\"e\",\"variant\":\"v\"";

        // The envelope: browser and browser_version on web only; sdk_int is read on every platform.
        cases.add(new Case(body(at, "\"platform\":\"web\",\"browser\":\"chrome\"", exposure), "400 missing_field: missing field \"browser_version\""));
        cases.add(new Case(body(at, "\"platform\":\"web\",\"browser\":\"netscape\",\"sdk_int\":0", exposure),
            "400 missing_field: missing field \"browser_version\""));
        cases.add(new Case(body(at, "\"platform\":\"web\",\"browser\":\"safari\",\"browser_version\":\"" + repeat('9', 129) + "\"", exposure),
            "400 invalid_field: invalid field \"browser_version\": expected at most 128 bytes, got 129"));
        cases.add(new Case(body(at, "\"platform\":\"web\",\"browser\":\"Chrome\",\"browser_version\":\"131\"", exposure),
            "400 invalid_field: invalid field \"browser\": expected one of chrome, edge, firefox, safari, samsung, opera, other"));
        cases.add(new Case(body(at, WEB + ",\"sdk_int\":0", exposure),
            "400 invalid_field: invalid field \"sdk_int\": expected an integer from 1 to 1000, got a number"));
        cases.add(new Case(body(at, WEB + ",\"sdk_int\":34", exposure), "accepted 1"));
        cases.add(new Case(body(at, ANDROID + ",\"browser\":\"netscape\",\"browser_version\":\"\"", exposure), "accepted 1"));
        cases.add(new Case(body(at, "\"platform\":\"Web\"", exposure),
            "400 invalid_field: invalid field \"platform\": expected one of ios, android, web"));

        // notification_settings: the envelope's platform decides which fields count.
        String settings = "\"type\":\"notification_settings\",";
        cases.add(new Case(body(at, WEB, settings + "\"authorization_status\":\"authorized\",\"push_permission_state\":\"granted\","
            + "\"display_mode\":\"standalone\",\"subscription\":\"active\",\"notifications_enabled\":\"yes\",\"alert_setting\":1"), "accepted 1"));
        cases.add(new Case(body(at, WEB, settings + "\"authorization_status\":\"ephemeral\""),
            "invalid_field: invalid field \"authorization_status\": expected one of authorized, denied, not_determined"));
        cases.add(new Case(body(at, WEB, settings + "\"authorization_status\":true"),
            "invalid_field: invalid field \"authorization_status\": expected one of authorized, denied, not_determined, got a boolean"));
        cases.add(new Case(body(at, WEB, settings + "\"authorization_status\":\"denied\",\"push_permission_state\":\"default\""),
            "invalid_field: invalid field \"push_permission_state\": expected one of granted, denied, prompt"));
        cases.add(new Case(body(at, WEB, settings + "\"authorization_status\":\"not_determined\",\"display_mode\":\"fullscreen\""),
            "invalid_field: invalid field \"display_mode\": expected one of browser, standalone"));
        cases.add(new Case(body(at, WEB, settings + "\"display_mode\":\"fullscreen\""), "missing_field: missing field \"authorization_status\""));
        cases.add(new Case(body(at, ANDROID, settings + "\"notifications_enabled\":true,\"display_mode\":\"fullscreen\",\"subscription\":1"),
            "accepted 1"));
        cases.add(new Case(body(at, IOS, settings + "\"authorization_status\":\"provisional\",\"push_permission_state\":\"default\""),
            "accepted 1"));

        // permission_prompt: provisional is an iOS answer.
        String prompt = "\"type\":\"permission_prompt\",\"placement\":\"onboarding\",\"prompt\":\"system\",\"result\":";
        cases.add(new Case(body(at, WEB, prompt + "\"provisional\""),
            "invalid_field: invalid field \"result\": expected one of granted, denied, dismissed, already_determined"));
        cases.add(new Case(body(at, WEB, prompt + "\"already_determined\""), "accepted 1"));
        cases.add(new Case(body(at, IOS, prompt + "\"provisional\""), "accepted 1"));

        // push_token: the provider belongs to the platform; environment is ignored for webpush.
        String token = "\"type\":\"push_token\",\"provider\":";
        String fcmEndpoint = JSONObject.quote("https://fcm.googleapis.com/fcm/send/abc:APA91b-x_y");
        cases.add(new Case(body(at, WEB, token + "\"fcm\",\"token\":\"fcm-token:1\""),
            "invalid_field: invalid field \"provider\": expected webpush on platform web"));
        cases.add(new Case(body(at, WEB, token + "7,\"token\":\"x\""),
            "invalid_field: invalid field \"provider\": expected webpush on platform web, got a number"));
        cases.add(new Case(body(at, WEB, token + "\"apns\""), "missing_field: missing field \"token\""));
        cases.add(new Case(body(at, IOS, token + "\"webpush\",\"token\":" + fcmEndpoint),
            "invalid_field: invalid field \"provider\": expected apns or fcm on platform ios"));
        cases.add(new Case(body(at, WEB, token + "\"webpush\",\"token\":" + fcmEndpoint + ",\"environment\":\"staging\""), "accepted 1"));
        cases.add(new Case(body(at, IOS, token + "\"apns\",\"token\":\"" + repeat('a', 64) + "\",\"environment\":\"staging\""),
            "invalid_field: invalid field \"environment\": expected one of production, sandbox"));
        cases.add(new Case(body(at, WEB, token + "\"webpush\",\"token\":12"),
            "invalid_field: invalid field \"token\": expected an https push subscription endpoint (at most 2048 bytes), got a number"));
        for (String endpoint : ENDPOINTS) {
            cases.add(new Case(body(at, WEB, token + "\"webpush\",\"token\":" + JSONObject.quote(endpoint)), "accepted 1"));
        }
        for (String endpoint : NOT_ENDPOINTS) {
            cases.add(new Case(body(at, WEB, token + "\"webpush\",\"token\":" + JSONObject.quote(endpoint)), BAD_ENDPOINT));
        }

        // notification_dismissed, on every platform: a notification_id and an optional channel.
        String dismissed = "\"type\":\"notification_dismissed\",\"notification_id\":\"" + UUID.randomUUID() + "\"";
        cases.add(new Case(body(at, ANDROID, dismissed + ",\"channel\":\"orders\",\"displayed\":\"not read\""), "accepted 1"));
        cases.add(new Case(body(at, IOS, dismissed), "accepted 1"));
        cases.add(new Case(body(at, WEB, dismissed + ",\"channel\":\"\""), "invalid_field: invalid field \"channel\": expected a non-empty string"));
        cases.add(new Case(body(at, WEB, "\"type\":\"notification_dismissed\",\"notification_id\":\"n-1\""),
            "invalid_field: invalid field \"notification_id\": expected a UUID (8-4-4-4-12 hex)"));
        return cases;
    }

    /** Subscription endpoints the server accepts. */
    static final List<String> ENDPOINTS = Arrays.asList(
        "https://fcm.googleapis.com/fcm/send/abc:APA91b-x_y",
        "HTTPS://Updates.Push.Services.Mozilla.com/wpush/v2/gAAAA",
        "https://user:secret@push.example.com:8443/p?x=1#f",
        "https://[2001:db8::1]:443/push",
        "https://a@b@web.push.apple.com/x",
        "https://h",
        "https://example.com?x",
        "https://example.com/" + repeat('a', 2048 - 20));

    /** Strings the server refuses as endpoints. */
    static final List<String> NOT_ENDPOINTS = Arrays.asList(
        "",
        "https://",
        "https:///no-host",
        "https://user@/x",
        "https://:443/x",
        "https://example.com@",
        "https://[2001:db8::1/push",
        "http://fcm.googleapis.com/fcm/send/abc",
        "wss://push.example.com/x",
        "https://push.example.com/a b",
        "https://push.example.com/\t",
        "https://push.example.com/caf\u00e9",
        "https://example.com/" + repeat('a', 2049 - 20));

    /** One event in an envelope of the given fields. */
    static String body(String at, String envelope, String event) {
        return "{\"app_id\":\"" + Fixtures.APP + "\",\"installation_id\":\"" + UUID.randomUUID() + "\"," + envelope
            + ",\"events\":[{\"event_id\":\"" + UUID.randomUUID() + "\",\"at\":\"" + at + "\"," + event + "}]}";
    }

    /** "400 code: message", "code: message" of the first rejection, or "accepted N". */
    static String summary(int status, JSONObject answer) {
        try {
            if (status != 200) return status + " " + answer.getString("error") + ": " + answer.getString("message");
            JSONArray rejected = answer.getJSONArray("rejected");
            if (rejected.length() == 0) return "accepted " + answer.getInt("accepted");
            JSONObject first = rejected.getJSONObject(0);
            return first.getString("error") + ": " + first.getString("message");
        } catch (JSONException e) {
            return "unreadable answer " + answer;
        }
    }

    static String repeat(char c, int n) { return ValidationTests.repeat(c, n); }
}
