// test_cxx.cpp -- the header compiles as C++ and the library links from it:
// a user event is marked without a cast (wf_event is one type across the
// API), and the growing structs are used as a C++ program would.
#include <waterfall.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>

int main()
{
    std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                       "/cxx-" + std::to_string(::getpid()) + ".wft";
    if (wf_version() != WF_VERSION_NUMBER || std::strcmp(wf_version_string(), WF_VERSION_STRING) != 0)
        return 1;
    wf_config c;
    if (wf_config_init(&c) != 0)
        return 1;
    c.flush_ms = 5;
    if (wf_open_config(path.c_str(), &c) != 0)
        return 1;
    wf_unit u = wf_unit_new("cxx-job", 1);
    wf_mark(WF_SYNTH_START, u);
    wf_mark(wf_event_define("KERNEL_START"), u); // no cast
    wf_event kernel_end = wf_event_define("KERNEL_END");
    std::thread gpu([u, kernel_end] {
        wf_thread_worker(0, 0);
        wf_mark(WF_GPU_START, u);
        wf_mark(kernel_end, u);
        wf_mark(WF_GPU_END, u);
    });
    gpu.join();
    if (wf_close() != 0)
        return 1;
    wf_stats_ex st = {sizeof st, 0, 0, 0, 0, 0};
    if (wf_get_stats_ex(&st) != 0)
        return 1;
    std::remove(path.c_str());
    std::printf("cxx: marked %llu recorded %llu (library %s)\n", (unsigned long long)st.marked,
                (unsigned long long)st.recorded, wf_version_string());
    return st.marked == 5 && st.recorded == 5 ? 0 : 1;
}
