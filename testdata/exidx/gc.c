void g(int);
double gd(double);
void cleanup(int *p);
__attribute__((visibility("hidden"))) void __gcc_personality_v0(void) {}
int fc(int x) { int __attribute__((cleanup(cleanup))) v = x; g(v); return v; }
double fd(double a, int n) {
	int __attribute__((cleanup(cleanup))) v = n;
	double s = a, t = a * 2;
	for (int i = 0; i < n; i++) { s = gd(s) + t; t = gd(t) * s; g(i); }
	return s + t;
}
int fbig(int n) {
	volatile char buf[2000];
	int __attribute__((cleanup(cleanup))) v = n;
	buf[n] = 1; g(buf[n/2]); return v;
}
int fleaf(int x) { return x * 3; }
