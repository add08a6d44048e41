package com.google.firebase.messaging;

import java.util.HashMap;
import java.util.Map;

/** Fake: a data message. */
public final class RemoteMessage {
    private final Map<String, String> data;

    public RemoteMessage(Map<String, String> data) { this.data = new HashMap<>(data); }

    public Map<String, String> getData() { return data; }
}
