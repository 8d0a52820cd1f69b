package dev.ragretrieval; public final class Main { public static void main(String[] a) {} }
