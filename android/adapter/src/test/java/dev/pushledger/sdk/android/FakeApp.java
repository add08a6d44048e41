package dev.pushledger.sdk.android;

import android.app.ActivityManager;
import android.app.NotificationChannel;
import android.app.NotificationChannelGroup;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.app.usage.UsageStatsManager;
import android.content.Context;
import android.os.Looper;
import android.os.PowerManager;
import android.system.Os;
import android.util.Log;

import androidx.lifecycle.ProcessLifecycleOwner;
import androidx.work.WorkManager;

import com.google.firebase.messaging.FirebaseMessaging;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

import dev.pushledger.fakes.Device;
import dev.pushledger.sdk.CoreAccess;
import dev.pushledger.sdk.PushLedgerTransport;

/**
 * One fake phone with the app installed: its context and system services, a scripted ingest
 * server behind the SDK's transport, and the SDK's process state reset as for a new install.
 */
final class FakeApp implements PushLedgerTransport {
    /** The server's answer to one request. */
    interface Script { Response answer(JSONObject body, int number) throws IOException; }

    final File storage;
    final Context app;
    final NotificationManager notifications = new NotificationManager();
    final UsageStatsManager usage = new UsageStatsManager();
    final ActivityManager activity = new ActivityManager();
    final PowerManager power = new PowerManager();
    final List<Request> requests = Collections.synchronizedList(new ArrayList<Request>());
    final List<JSONObject> bodies = Collections.synchronizedList(new ArrayList<JSONObject>());
    volatile Script script = (body, n) -> ok(body);
    /** Runs while a request is on its way (another thread recording meanwhile). */
    volatile Runnable duringRequest;

    FakeApp(int sdk) throws IOException {
        Device.reset(sdk);
        PendingIntent.fakeReset();
        WorkManager.getInstance(null).fakeReset();
        FirebaseMessaging.fakeReset();
        Log.LINES.clear();
        Os.FSYNCS.set(0);
        storage = Files.createTempDirectory("pushledger-adapter-").toFile();
        storage.deleteOnExit();
        app = new Context(storage, "5.2.0");
        if (sdk >= 23) {
            app.fakeService(PowerManager.class, power);
            app.fakeService(NotificationManager.class, notifications);
            app.fakeService(UsageStatsManager.class, usage);
            app.fakeService(ActivityManager.class, activity);
        }
        newProcess();
    }

    /** The process was killed and starts again: the SDK's memory is gone, its files and the work queue stay. */
    void newProcess() {
        idle();
        ProcessLifecycleOwner.fakeNewProcess();
        PushLedgerAndroid.resetProcess();
        CoreAccess.newProcess();
    }

    /** {@code Application.onCreate()}. */
    void start() {
        PushLedgerAndroid.start(app, new PushLedgerAndroid.Settings("com.example.shop", "https://ingest.example.com",
            "plk_test_secret_key_0123456789").transport(this));
        idle();
    }

    /** The channels a shop app creates: orders, promotions (blocked by the user), two in a group. */
    void createChannels() {
        notifications.createNotificationChannel(new NotificationChannel("orders", "Orders",
                NotificationManager.IMPORTANCE_HIGH));
        NotificationChannel promotions = new NotificationChannel("promotions", "Promotions",
                NotificationManager.IMPORTANCE_DEFAULT);
        promotions.fakeUserSetsImportance(NotificationManager.IMPORTANCE_NONE);
        notifications.createNotificationChannel(promotions);
        notifications.createNotificationChannelGroup(new NotificationChannelGroup("social", "Social"));
        NotificationChannel friends = new NotificationChannel("friends", "Friends",
                NotificationManager.IMPORTANCE_DEFAULT);
        friends.setGroup("social");
        notifications.createNotificationChannel(friends);
    }

    /** Waits until the SDK's I/O thread has run everything given to it so far. */
    static void idle() {
        CountDownLatch done = new CountDownLatch(1);
        PushLedgerAndroid.IO.execute(done::countDown);
        try {
            if (!done.await(10, TimeUnit.SECONDS)) throw new IllegalStateException("the SDK's I/O thread is stuck");
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        Looper.fakeRunMain();
    }

    /** The events journalled now, oldest first. */
    List<JSONObject> journal() throws IOException, JSONException {
        File[] files = new File(new File(storage, "PushLedger"), "events").listFiles();
        List<JSONObject> events = new ArrayList<>();
        if (files == null) return events;
        Arrays.sort(files);
        for (File f : files) {
            String[] lines = new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8).split("\n");
            events.add(new JSONObject(lines[1]));
        }
        return events;
    }

    List<JSONObject> journal(String type) throws IOException, JSONException {
        List<JSONObject> of = new ArrayList<>();
        for (JSONObject e : journal()) if (e.getString("type").equals(type)) of.add(e);
        return of;
    }

    /** Every event the server was sent, in order. */
    List<JSONObject> sent() throws JSONException {
        List<JSONObject> events = new ArrayList<>();
        synchronized (bodies) {
            for (JSONObject body : bodies) {
                JSONArray list = body.getJSONArray("events");
                for (int i = 0; i < list.length(); i++) events.add(list.getJSONObject(i));
            }
        }
        return events;
    }

    /** Runs the next upload WorkManager would run. */
    WorkManager.Work runUpload() throws Exception {
        return WorkManager.getInstance(app).fakeRunNext(app, UploadWorker.UNIQUE_NAME, null);
    }

    int uploadsWaiting() { return WorkManager.getInstance(app).fakeWaiting(UploadWorker.UNIQUE_NAME); }

    @Override
    public Response send(Request request) throws IOException {
        requests.add(request);
        JSONObject body;
        try {
            body = new JSONObject(new String(gunzip(request.body), StandardCharsets.UTF_8));
        } catch (JSONException e) {
            throw new IOException(e);
        }
        Runnable during = duringRequest;
        if (during != null) during.run();
        Response response = script.answer(body, requests.size());
        if (response.status == 200) bodies.add(body);
        return response;
    }

    static Response ok(JSONObject body) {
        return json(200, "{\"accepted\":" + body.optJSONArray("events").length()
                + ",\"duplicates\":0,\"rejected\":[]}");
    }

    static Response json(int status, String text) { return answer(status, "application/json", text); }

    static Response answer(int status, String contentType, String text) {
        Map<String, String> headers = new HashMap<>();
        headers.put("Content-Type", contentType);
        return new Response(status, headers, text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] gunzip(byte[] gz) throws IOException {
        try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(gz))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
            return out.toByteArray();
        }
    }
}
