package dev.pushledger.sdk;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

/** What one {@code flush()} did. */
public final class FlushResult {
    /** One event the server refused: dropped from the journal, logged, never retried. */
    public static final class RejectedEvent {
        public final @Nullable UUID eventId;
        public final @NotNull String code;
        public final @NotNull String message;

        RejectedEvent(@Nullable UUID eventId, @NotNull String code, @NotNull String message) {
            this.eventId = eventId;
            this.code = code;
            this.message = message;
        }

        @Override
        public String toString() { return eventId + " " + code + ": " + message; }
    }

    int accepted;
    int duplicates;
    int droppedByCap;
    final List<RejectedEvent> rejected = new ArrayList<>();

    /** Events newly stored by the server. */
    public int accepted() { return accepted; }

    /** Events the server already had (an earlier answer was lost on the way): stored once. */
    public int duplicates() { return duplicates; }

    /** Events the server refused. */
    public @NotNull List<RejectedEvent> rejected() { return Collections.unmodifiableList(rejected); }

    /** Events the journal's cap dropped during this flush. */
    public int droppedByCap() { return droppedByCap; }

    @Override
    public String toString() {
        return "accepted=" + accepted + " duplicates=" + duplicates + " rejected=" + rejected.size() + " dropped_by_cap=" + droppedByCap;
    }
}
