package dev.pushledger.sdk;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.jetbrains.annotations.NotNull;

/**
 * How a {@code POST_NOTIFICATIONS} request ended, from what the app can observe: the permission
 * and {@code shouldShowRequestPermissionRationale} before and after the request, this
 * installation's history of requests, and how long the answer took. Android reports neither
 * "the dialog was not shown" nor "the dialog was dismissed"; these rules infer both:
 *
 * <ul>
 *   <li>below API 33, or already granted: the OS shows nothing — {@code already_determined};
 *   <li>granted after: {@code granted};
 *   <li>denied, no rationale before or after, and this installation saw the final denial (a
 *       denial that turned the rationale flag from true to false): the OS shows nothing after
 *       two denials — {@code already_determined}, however long the answer took;
 *   <li>the same without that history (the final denial happened before the SDK, or in the
 *       system settings), after an earlier request, answered within {@link #NO_DIALOG_MILLIS}:
 *       {@code already_determined};
 *   <li>denied and the rationale flag changed (false → true: a first denial; true → false: the
 *       second, final denial): {@code denied};
 *   <li>denied and the rationale flag unchanged: no denial was counted, the dialog was closed
 *       by back or a tap outside — {@code dismissed}.
 * </ul>
 */
public final class PermissionRequest {
    /**
     * Without the history, an answer faster than this after an earlier request means no dialog
     * was shown: the OS answers in a few hundred milliseconds on slow devices, while a person
     * needs the dialog's animation plus a reading and a tap.
     */
    public static final long NO_DIALOG_MILLIS = 1_000;

    /** This installation's requests, next to the journal (no-backup storage, like the permission after a restore). */
    public static final class History {
        /** Requests made, the current one included once {@link #requested} ran for it. */
        public final int requests;
        /** The user's final denial was observed (rationale true → false on a denial), and no grant since. */
        public final boolean finalDenial;

        public History(int requests, boolean finalDenial) {
            this.requests = requests;
            this.finalDenial = finalDenial;
        }
    }

    private PermissionRequest() {}

    /** The result word; {@code history} as read after {@link #requested} ran for this request. */
    public static @NotNull PromptResult result(int sdkInt, boolean grantedBefore, boolean rationaleBefore,
            @NotNull History history, boolean grantedAfter, boolean rationaleAfter, long elapsedMillis) {
        if (sdkInt < 33 || grantedBefore) return PromptResult.ALREADY_DETERMINED;
        if (grantedAfter) return PromptResult.GRANTED;
        if (!rationaleBefore && !rationaleAfter) {
            if (history.finalDenial) return PromptResult.ALREADY_DETERMINED;
            if (history.requests >= 2 && elapsedMillis < NO_DIALOG_MILLIS) return PromptResult.ALREADY_DETERMINED;
        }
        return rationaleBefore != rationaleAfter ? PromptResult.DENIED : PromptResult.DISMISSED;
    }

    /** The history on {@code storageDir} (none: no request yet); the empty file of earlier versions is one request. */
    public static @NotNull History history(@NotNull File storageDir) {
        File file = file(storageDir);
        if (!file.exists()) return new History(0, false);
        int requests = 1;
        boolean finalDenial = false;
        try {
            String text = new String(Streams.readAll(new FileInputStream(file)), StandardCharsets.UTF_8);
            for (String field : text.trim().split(" ")) {
                if (field.startsWith("requests=")) requests = Math.max(1, Integer.parseInt(field.substring(9)));
                if (field.equals("final_denial=1")) finalDenial = true;
            }
        } catch (IOException | NumberFormatException e) {
            // Unreadable: one request, no denial seen; the timing rule decides.
        }
        return new History(requests, finalDenial);
    }

    /** Counts a request (call it when requesting; off the main thread: it fsyncs). */
    public static void requested(@NotNull File storageDir) throws IOException {
        History h = history(storageDir);
        write(storageDir, new History(h.requests + 1, h.finalDenial));
    }

    /** Keeps what the answer showed: a final denial, or a grant that ends one. */
    public static void answered(@NotNull File storageDir, @NotNull PromptResult result, boolean rationaleBefore,
            boolean rationaleAfter) throws IOException {
        History h = history(storageDir);
        boolean finalDenial = result == PromptResult.GRANTED ? false
            : h.finalDenial || (result == PromptResult.DENIED && rationaleBefore && !rationaleAfter);
        if (finalDenial != h.finalDenial) write(storageDir, new History(h.requests, finalDenial));
    }

    private static File file(File storageDir) {
        return new File(new File(storageDir, "PushLedger"), "permission-requested");
    }

    private static void write(File storageDir, History history) throws IOException {
        File file = file(storageDir);
        File directory = file.getParentFile();
        if (!directory.isDirectory() && !directory.mkdirs() && !directory.isDirectory()) throw new IOException("cannot create " + directory);
        File temporary = new File(directory, "permission-requested.partial");
        try (FileOutputStream out = new FileOutputStream(temporary)) {
            String text = "requests=" + history.requests + " final_denial=" + (history.finalDenial ? 1 : 0);
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.getFD().sync();
        }
        if (!temporary.renameTo(file)) throw new IOException("rename to " + file + " failed");
    }
}
