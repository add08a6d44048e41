package com.google.firebase.messaging;
public final class RemoteMessage { public java.util.Map<String, String> getData() { return null; } }
