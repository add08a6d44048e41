package dev.pushledger.sdk.android;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import dev.pushledger.sdk.PushLedgerEvent;

/** The merged manifest's receiver, and the consent switch through the adapter. */
class ManifestAndConsentTests {
    @Test
    void theBlockStateReceiverIsNotExported() throws Exception {
        File manifest = new File(System.getProperty("pushledger.root", "."),
                "android/adapter/src/main/AndroidManifest.xml");
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        Document doc = factory.newDocumentBuilder().parse(manifest);
        NodeList receivers = doc.getElementsByTagName("receiver");
        assertEquals(1, receivers.getLength());
        Element receiver = (Element) receivers.item(0);
        String android = "http://schemas.android.com/apk/res/android";
        assertEquals("dev.pushledger.sdk.android.BlockStateReceiver", receiver.getAttributeNS(android, "name"));
        assertEquals("false", receiver.getAttributeNS(android, "exported"),
                "only the system (and the app) may send it broadcasts");
    }

    @Test
    void disabledRecordsNothingSchedulesNothingAndClearsTheQueueOnRequest() throws Exception {
        FakeApp phone = new FakeApp(34);
        phone.start();
        assertEquals(1, phone.journal().size());
        PushLedgerAndroid.setEnabled(phone.app, false, true);
        FakeApp.idle();
        assertEquals(0, phone.journal().size(), "the queue cleared");
        PushLedgerAndroid.record(phone.app, PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen"));
        phone.newProcess();
        phone.start();
        assertEquals(0, phone.journal().size(), "nothing recorded, in this process or the next");
        phone.runUpload(); // the upload scheduled before the switch
        assertTrue(phone.requests.isEmpty(), "nothing sent");
        PushLedgerAndroid.setEnabled(phone.app, true, false);
        FakeApp.idle();
        PushLedgerAndroid.record(phone.app, PushLedgerEvent.experimentExposure("push_prompt_timing", "first_screen"));
        FakeApp.idle();
        assertEquals(1, phone.journal().size());
    }
}
