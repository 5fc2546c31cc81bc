#include "runtime/device/vulkan/vulkan_device.h"

#include <dirent.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kiln::runtime::vulkan {

// The entry points kiln uses. Global and instance-level ones come from vkGetInstanceProcAddr,
// device-level ones from vkGetDeviceProcAddr (which skips the loader's dispatch trampoline).
struct Functions {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  // instance
  PFN_vkDestroyInstance vkDestroyInstance = nullptr;
  PFN_vkEnumeratePhysicalDevices vkEnumeratePhysicalDevices = nullptr;
  PFN_vkGetPhysicalDeviceProperties vkGetPhysicalDeviceProperties = nullptr;
  PFN_vkGetPhysicalDeviceQueueFamilyProperties vkGetPhysicalDeviceQueueFamilyProperties = nullptr;
  PFN_vkGetPhysicalDeviceMemoryProperties vkGetPhysicalDeviceMemoryProperties = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2 vkGetPhysicalDeviceFeatures2 = nullptr;
  PFN_vkCreateDevice vkCreateDevice = nullptr;
  PFN_vkGetDeviceProcAddr vkGetDeviceProcAddr = nullptr;
  // device
  PFN_vkDestroyDevice vkDestroyDevice = nullptr;
  PFN_vkGetDeviceQueue vkGetDeviceQueue = nullptr;
  PFN_vkCreateBuffer vkCreateBuffer = nullptr;
  PFN_vkDestroyBuffer vkDestroyBuffer = nullptr;
  PFN_vkGetBufferMemoryRequirements vkGetBufferMemoryRequirements = nullptr;
  PFN_vkAllocateMemory vkAllocateMemory = nullptr;
  PFN_vkFreeMemory vkFreeMemory = nullptr;
  PFN_vkBindBufferMemory vkBindBufferMemory = nullptr;
  PFN_vkMapMemory vkMapMemory = nullptr;
  PFN_vkUnmapMemory vkUnmapMemory = nullptr;
  PFN_vkCreateShaderModule vkCreateShaderModule = nullptr;
  PFN_vkDestroyShaderModule vkDestroyShaderModule = nullptr;
  PFN_vkCreateDescriptorSetLayout vkCreateDescriptorSetLayout = nullptr;
  PFN_vkDestroyDescriptorSetLayout vkDestroyDescriptorSetLayout = nullptr;
  PFN_vkCreatePipelineLayout vkCreatePipelineLayout = nullptr;
  PFN_vkDestroyPipelineLayout vkDestroyPipelineLayout = nullptr;
  PFN_vkCreateComputePipelines vkCreateComputePipelines = nullptr;
  PFN_vkDestroyPipeline vkDestroyPipeline = nullptr;
  PFN_vkCreateDescriptorPool vkCreateDescriptorPool = nullptr;
  PFN_vkDestroyDescriptorPool vkDestroyDescriptorPool = nullptr;
  PFN_vkAllocateDescriptorSets vkAllocateDescriptorSets = nullptr;
  PFN_vkUpdateDescriptorSets vkUpdateDescriptorSets = nullptr;
  PFN_vkCreateCommandPool vkCreateCommandPool = nullptr;
  PFN_vkDestroyCommandPool vkDestroyCommandPool = nullptr;
  PFN_vkAllocateCommandBuffers vkAllocateCommandBuffers = nullptr;
  PFN_vkResetCommandBuffer vkResetCommandBuffer = nullptr;
  PFN_vkBeginCommandBuffer vkBeginCommandBuffer = nullptr;
  PFN_vkEndCommandBuffer vkEndCommandBuffer = nullptr;
  PFN_vkCmdBindPipeline vkCmdBindPipeline = nullptr;
  PFN_vkCmdBindDescriptorSets vkCmdBindDescriptorSets = nullptr;
  PFN_vkCmdPushConstants vkCmdPushConstants = nullptr;
  PFN_vkCmdDispatch vkCmdDispatch = nullptr;
  PFN_vkCmdPipelineBarrier vkCmdPipelineBarrier = nullptr;
  PFN_vkCmdResetQueryPool vkCmdResetQueryPool = nullptr;
  PFN_vkCmdWriteTimestamp vkCmdWriteTimestamp = nullptr;
  PFN_vkCreateQueryPool vkCreateQueryPool = nullptr;
  PFN_vkDestroyQueryPool vkDestroyQueryPool = nullptr;
  PFN_vkGetQueryPoolResults vkGetQueryPoolResults = nullptr;
  PFN_vkCreateFence vkCreateFence = nullptr;
  PFN_vkDestroyFence vkDestroyFence = nullptr;
  PFN_vkResetFences vkResetFences = nullptr;
  PFN_vkWaitForFences vkWaitForFences = nullptr;
  PFN_vkQueueSubmit vkQueueSubmit = nullptr;
  PFN_vkDeviceWaitIdle vkDeviceWaitIdle = nullptr;
};

namespace {

absl::Status VkError(const std::string& what, VkResult r) {
  if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY) {
    return absl::ResourceExhaustedError(absl::StrCat("Vulkan: ", what, ": out of memory (VkResult ", r, ")"));
  }
  return absl::InternalError(absl::StrCat("Vulkan: ", what, " failed (VkResult ", r, ")"));
}

// The driver library a Vulkan ICD manifest (JSON) names in "library_path" ("" if none).
std::string ManifestLibrary(const std::string& manifest) {
  std::ifstream in(manifest);
  std::stringstream text;
  text << in.rdbuf();
  std::string json = text.str();
  size_t key = json.find("\"library_path\"");
  if (key == std::string::npos) return "";
  size_t open = json.find('"', json.find(':', key));
  size_t close = open == std::string::npos ? std::string::npos : json.find('"', open + 1);
  if (close == std::string::npos) return "";
  return json.substr(open + 1, close - open - 1);
}

// Loads every installed Vulkan driver (the libraries the ICD manifests name: $VK_DRIVER_FILES or
// $VK_ICD_FILENAMES, else the manifest directories) with RTLD_DEEPBIND before the loader does.
// Mesa's drivers (lavapipe included) bring their own LLVM; in a process that also has LLVM code
// of its own (kiln's LLVM backend), their vague-linkage template symbols (pass models, vtables)
// would otherwise bind to the process's copies and the driver's shader compiler would crash.
// Deep binding keeps the driver's lookups inside its own libraries; the loader's later dlopen of
// the same path reuses the loaded object. Done once per process; the handles stay open.
void PreloadDriversWithDeepBinding() {
  static const bool done = [] {
    std::vector<std::string> manifests;
    const char* env = std::getenv("VK_DRIVER_FILES");
    if (env == nullptr || *env == '\0') env = std::getenv("VK_ICD_FILENAMES");
    if (env != nullptr && *env != '\0') {
      for (absl::string_view f : absl::StrSplit(env, ':', absl::SkipEmpty())) manifests.emplace_back(f);
    } else {
      for (const char* dir : {"/usr/share/vulkan/icd.d", "/usr/local/share/vulkan/icd.d", "/etc/vulkan/icd.d"}) {
        if (DIR* d = opendir(dir)) {
          while (struct dirent* e = readdir(d)) {
            if (absl::EndsWith(e->d_name, ".json")) manifests.push_back(absl::StrCat(dir, "/", e->d_name));
          }
          closedir(d);
        }
      }
    }
    for (const std::string& m : manifests) {
      std::string lib = ManifestLibrary(m);
      if (!lib.empty()) dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);  // failure: the loader reports it
    }
    return true;
  }();
  (void)done;
}

// The loader, opened once per process and kept open (the handle is never closed: drivers it loaded
// may have registered atexit handlers). Null with the reason in `error` when absent.
void* Loader(std::string* error) {
  static const std::pair<void*, std::string> loader = [] {
    void* h = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    const char* err = h == nullptr ? dlerror() : nullptr;
    return std::make_pair(h, std::string(err != nullptr ? err : ""));
  }();
  *error = loader.second;
  return loader.first;
}

template <typename F>
bool LoadInstanceFn(const Functions& fn, VkInstance instance, const char* name, F* out) {
  *out = reinterpret_cast<F>(fn.vkGetInstanceProcAddr(instance, name));
  return *out != nullptr;
}

template <typename F>
bool LoadDeviceFn(const Functions& fn, VkDevice device, const char* name, F* out) {
  *out = reinterpret_cast<F>(fn.vkGetDeviceProcAddr(device, name));
  return *out != nullptr;
}

bool LoadInstanceFunctions(Functions* f, VkInstance i) {
  return LoadInstanceFn(*f, i, "vkDestroyInstance", &f->vkDestroyInstance) &&
         LoadInstanceFn(*f, i, "vkEnumeratePhysicalDevices", &f->vkEnumeratePhysicalDevices) &&
         LoadInstanceFn(*f, i, "vkGetPhysicalDeviceProperties", &f->vkGetPhysicalDeviceProperties) &&
         LoadInstanceFn(*f, i, "vkGetPhysicalDeviceQueueFamilyProperties", &f->vkGetPhysicalDeviceQueueFamilyProperties) &&
         LoadInstanceFn(*f, i, "vkGetPhysicalDeviceMemoryProperties", &f->vkGetPhysicalDeviceMemoryProperties) &&
         LoadInstanceFn(*f, i, "vkGetPhysicalDeviceFeatures2", &f->vkGetPhysicalDeviceFeatures2) &&
         LoadInstanceFn(*f, i, "vkCreateDevice", &f->vkCreateDevice) &&
         LoadInstanceFn(*f, i, "vkGetDeviceProcAddr", &f->vkGetDeviceProcAddr);
}

bool LoadDeviceFunctions(Functions* f, VkDevice d) {
  return LoadDeviceFn(*f, d, "vkDestroyDevice", &f->vkDestroyDevice) &&
         LoadDeviceFn(*f, d, "vkGetDeviceQueue", &f->vkGetDeviceQueue) &&
         LoadDeviceFn(*f, d, "vkCreateBuffer", &f->vkCreateBuffer) &&
         LoadDeviceFn(*f, d, "vkDestroyBuffer", &f->vkDestroyBuffer) &&
         LoadDeviceFn(*f, d, "vkGetBufferMemoryRequirements", &f->vkGetBufferMemoryRequirements) &&
         LoadDeviceFn(*f, d, "vkAllocateMemory", &f->vkAllocateMemory) &&
         LoadDeviceFn(*f, d, "vkFreeMemory", &f->vkFreeMemory) &&
         LoadDeviceFn(*f, d, "vkBindBufferMemory", &f->vkBindBufferMemory) &&
         LoadDeviceFn(*f, d, "vkMapMemory", &f->vkMapMemory) &&
         LoadDeviceFn(*f, d, "vkUnmapMemory", &f->vkUnmapMemory) &&
         LoadDeviceFn(*f, d, "vkCreateShaderModule", &f->vkCreateShaderModule) &&
         LoadDeviceFn(*f, d, "vkDestroyShaderModule", &f->vkDestroyShaderModule) &&
         LoadDeviceFn(*f, d, "vkCreateDescriptorSetLayout", &f->vkCreateDescriptorSetLayout) &&
         LoadDeviceFn(*f, d, "vkDestroyDescriptorSetLayout", &f->vkDestroyDescriptorSetLayout) &&
         LoadDeviceFn(*f, d, "vkCreatePipelineLayout", &f->vkCreatePipelineLayout) &&
         LoadDeviceFn(*f, d, "vkDestroyPipelineLayout", &f->vkDestroyPipelineLayout) &&
         LoadDeviceFn(*f, d, "vkCreateComputePipelines", &f->vkCreateComputePipelines) &&
         LoadDeviceFn(*f, d, "vkDestroyPipeline", &f->vkDestroyPipeline) &&
         LoadDeviceFn(*f, d, "vkCreateDescriptorPool", &f->vkCreateDescriptorPool) &&
         LoadDeviceFn(*f, d, "vkDestroyDescriptorPool", &f->vkDestroyDescriptorPool) &&
         LoadDeviceFn(*f, d, "vkAllocateDescriptorSets", &f->vkAllocateDescriptorSets) &&
         LoadDeviceFn(*f, d, "vkUpdateDescriptorSets", &f->vkUpdateDescriptorSets) &&
         LoadDeviceFn(*f, d, "vkCreateCommandPool", &f->vkCreateCommandPool) &&
         LoadDeviceFn(*f, d, "vkDestroyCommandPool", &f->vkDestroyCommandPool) &&
         LoadDeviceFn(*f, d, "vkAllocateCommandBuffers", &f->vkAllocateCommandBuffers) &&
         LoadDeviceFn(*f, d, "vkResetCommandBuffer", &f->vkResetCommandBuffer) &&
         LoadDeviceFn(*f, d, "vkBeginCommandBuffer", &f->vkBeginCommandBuffer) &&
         LoadDeviceFn(*f, d, "vkEndCommandBuffer", &f->vkEndCommandBuffer) &&
         LoadDeviceFn(*f, d, "vkCmdBindPipeline", &f->vkCmdBindPipeline) &&
         LoadDeviceFn(*f, d, "vkCmdBindDescriptorSets", &f->vkCmdBindDescriptorSets) &&
         LoadDeviceFn(*f, d, "vkCmdPushConstants", &f->vkCmdPushConstants) &&
         LoadDeviceFn(*f, d, "vkCmdDispatch", &f->vkCmdDispatch) &&
         LoadDeviceFn(*f, d, "vkCmdPipelineBarrier", &f->vkCmdPipelineBarrier) &&
         LoadDeviceFn(*f, d, "vkCmdResetQueryPool", &f->vkCmdResetQueryPool) &&
         LoadDeviceFn(*f, d, "vkCmdWriteTimestamp", &f->vkCmdWriteTimestamp) &&
         LoadDeviceFn(*f, d, "vkCreateQueryPool", &f->vkCreateQueryPool) &&
         LoadDeviceFn(*f, d, "vkDestroyQueryPool", &f->vkDestroyQueryPool) &&
         LoadDeviceFn(*f, d, "vkGetQueryPoolResults", &f->vkGetQueryPoolResults) &&
         LoadDeviceFn(*f, d, "vkCreateFence", &f->vkCreateFence) &&
         LoadDeviceFn(*f, d, "vkDestroyFence", &f->vkDestroyFence) &&
         LoadDeviceFn(*f, d, "vkResetFences", &f->vkResetFences) &&
         LoadDeviceFn(*f, d, "vkWaitForFences", &f->vkWaitForFences) &&
         LoadDeviceFn(*f, d, "vkQueueSubmit", &f->vkQueueSubmit) &&
         LoadDeviceFn(*f, d, "vkDeviceWaitIdle", &f->vkDeviceWaitIdle);
}

// The SPIR-V capabilities a module declares (OpCapability operands).
std::vector<uint32_t> Capabilities(const std::vector<uint32_t>& words) {
  std::vector<uint32_t> caps;
  size_t i = 5;  // after the header
  while (i < words.size()) {
    uint32_t count = words[i] >> 16, op = words[i] & 0xffff;
    if (count == 0) break;
    if (op == 17 /* OpCapability */ && count == 2 && i + 1 < words.size()) caps.push_back(words[i + 1]);
    if (op != 17 && op != 10 /* OpExtension */ && op != 11 /* OpExtInstImport */) break;  // past the preamble
    i += count;
  }
  return caps;
}

constexpr uint32_t kCapShader = 1, kCapFloat16 = 9, kCapFloat64 = 10, kCapInt64 = 11, kCapInt16 = 22,
                   kCapInt8 = 39, kCapStorageBuffer16 = 4433, kCapStorageBuffer8 = 4448;

constexpr uint64_t kFenceTimeoutNs = 600ull * 1000 * 1000 * 1000;  // a runaway shader, not a slow one

}  // namespace

// ---------------- buffers ----------------

VulkanBuffer& VulkanBuffer::operator=(VulkanBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    device_ = other.device_;
    buffer_ = other.buffer_;
    memory_ = other.memory_;
    mapped_ = other.mapped_;
    bytes_ = other.bytes_;
    other.device_ = nullptr;
    other.buffer_ = VK_NULL_HANDLE;
    other.memory_ = VK_NULL_HANDLE;
    other.mapped_ = nullptr;
  }
  return *this;
}

VulkanBuffer::~VulkanBuffer() { Release(); }

void VulkanBuffer::Release() {
  if (device_ == nullptr) return;
  const Functions& fn = *device_->fn_;
  if (buffer_ != VK_NULL_HANDLE) fn.vkDestroyBuffer(device_->device_, buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) {
    if (mapped_ != nullptr) fn.vkUnmapMemory(device_->device_, memory_);
    fn.vkFreeMemory(device_->device_, memory_, nullptr);
  }
  device_ = nullptr;
}

// ---------------- device ----------------

absl::StatusOr<std::unique_ptr<VulkanDevice>> VulkanDevice::Open() {
  PreloadDriversWithDeepBinding();
  std::string error;
  void* loader = Loader(&error);
  if (loader == nullptr) {
    return absl::UnavailableError(absl::StrCat("device unavailable: the Vulkan loader (libvulkan.so.1) is not installed: ", error));
  }
  std::unique_ptr<VulkanDevice> d(new VulkanDevice());
  d->fn_ = std::make_unique<Functions>();
  Functions& fn = *d->fn_;
  fn.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(loader, "vkGetInstanceProcAddr"));
  if (fn.vkGetInstanceProcAddr == nullptr) {
    return absl::UnavailableError("device unavailable: libvulkan.so.1 has no vkGetInstanceProcAddr");
  }
  LoadInstanceFn(fn, VK_NULL_HANDLE, "vkCreateInstance", &fn.vkCreateInstance);
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "kiln";
  app.pEngineName = "kiln";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkResult r = fn.vkCreateInstance(&ici, nullptr, &d->instance_);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED) {
    return absl::UnavailableError(absl::StrCat("device unavailable: no Vulkan driver is installed (VkResult ", r, ")"));
  }
  if (r != VK_SUCCESS) return VkError("vkCreateInstance", r);
  if (!LoadInstanceFunctions(&fn, d->instance_)) return absl::UnavailableError("device unavailable: the Vulkan loader lacks Vulkan 1.1 entry points");

  uint32_t count = 0;
  fn.vkEnumeratePhysicalDevices(d->instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (count > 0) fn.vkEnumeratePhysicalDevices(d->instance_, &count, devices.data());
  // A GPU before a CPU device; the first with a compute queue.
  int best_rank = -1;
  for (VkPhysicalDevice p : devices) {
    VkPhysicalDeviceProperties props;
    fn.vkGetPhysicalDeviceProperties(p, &props);
    if (props.apiVersion < VK_API_VERSION_1_1) continue;
    uint32_t nq = 0;
    fn.vkGetPhysicalDeviceQueueFamilyProperties(p, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> families(nq);
    fn.vkGetPhysicalDeviceQueueFamilyProperties(p, &nq, families.data());
    for (uint32_t q = 0; q < nq; ++q) {
      if (!(families[q].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
      int rank = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU     ? 3
                 : props.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 2
                 : props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU            ? 0
                                                                                : 1;
      if (rank > best_rank) {
        best_rank = rank;
        d->physical_ = p;
        d->queue_family_ = q;
        d->timestamps_ = families[q].timestampValidBits > 0;
      }
      break;
    }
  }
  if (d->physical_ == VK_NULL_HANDLE) {
    return absl::UnavailableError(absl::StrCat("device unavailable: none of the ", count,
                                               " Vulkan device(s) has a compute queue and Vulkan 1.1"));
  }
  VkPhysicalDeviceProperties props;
  fn.vkGetPhysicalDeviceProperties(d->physical_, &props);
  d->limits_ = props.limits;
  d->timestamps_ = d->timestamps_ && props.limits.timestampComputeAndGraphics;
  d->timestamp_period_ns_ = props.limits.timestampPeriod;
  d->description_ = absl::StrCat(props.deviceName, " (Vulkan ", VK_API_VERSION_MAJOR(props.apiVersion), ".",
                                 VK_API_VERSION_MINOR(props.apiVersion), ")");

  // Features: the ones kernels may declare, enabled where the device has them.
  bool v12 = props.apiVersion >= VK_API_VERSION_1_2;
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &s16;
  if (v12) {  // the 8-bit and float16/int8 structs are core from 1.2
    s16.pNext = &s8;
    s8.pNext = &f16i8;
  }
  fn.vkGetPhysicalDeviceFeatures2(d->physical_, &features);
  VkPhysicalDeviceShaderFloat16Int8Features en_f16i8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice8BitStorageFeatures en_s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDevice16BitStorageFeatures en_s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceFeatures2 enabled{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  enabled.features.shaderInt64 = features.features.shaderInt64;
  enabled.features.shaderFloat64 = features.features.shaderFloat64;
  enabled.features.shaderInt16 = features.features.shaderInt16;
  en_s16.storageBuffer16BitAccess = s16.storageBuffer16BitAccess;
  en_s8.storageBuffer8BitAccess = s8.storageBuffer8BitAccess;
  en_f16i8.shaderFloat16 = f16i8.shaderFloat16;
  en_f16i8.shaderInt8 = f16i8.shaderInt8;
  enabled.pNext = &en_s16;
  if (v12) {
    en_s16.pNext = &en_s8;
    en_s8.pNext = &en_f16i8;
  }
  auto need = [&](uint32_t cap, VkBool32 have, const char* feature) {
    if (!have) d->missing_[cap] = feature;
  };
  need(kCapInt64, features.features.shaderInt64, "shaderInt64");
  need(kCapFloat64, features.features.shaderFloat64, "shaderFloat64");
  need(kCapInt16, features.features.shaderInt16, "shaderInt16");
  need(kCapStorageBuffer16, s16.storageBuffer16BitAccess, "storageBuffer16BitAccess");
  need(kCapStorageBuffer8, s8.storageBuffer8BitAccess, "storageBuffer8BitAccess");
  need(kCapFloat16, f16i8.shaderFloat16, "shaderFloat16");
  need(kCapInt8, f16i8.shaderInt8, "shaderInt8");

  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = d->queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &enabled;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  r = fn.vkCreateDevice(d->physical_, &dci, nullptr, &d->device_);
  if (r != VK_SUCCESS) return VkError("vkCreateDevice", r);
  if (!LoadDeviceFunctions(&fn, d->device_)) return absl::InternalError("Vulkan: the driver lacks a core entry point");
  fn.vkGetDeviceQueue(d->device_, d->queue_family_, 0, &d->queue_);

  // Host-visible, coherent memory (device-local as well where there is such a type).
  VkPhysicalDeviceMemoryProperties mem;
  fn.vkGetPhysicalDeviceMemoryProperties(d->physical_, &mem);
  const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int chosen = -1;
  for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
    if ((f & want) != want) continue;
    if (chosen < 0 || (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) chosen = static_cast<int>(i);
    if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) break;
  }
  if (chosen < 0) return absl::UnavailableError(absl::StrCat("device unavailable: ", d->description_, " has no host-visible memory"));
  d->memory_type_ = static_cast<uint32_t>(chosen);

  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = d->queue_family_;
  if ((r = fn.vkCreateCommandPool(d->device_, &pci, nullptr, &d->pool_)) != VK_SUCCESS) return VkError("vkCreateCommandPool", r);
  VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = d->pool_;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  if ((r = fn.vkAllocateCommandBuffers(d->device_, &cai, &d->commands_)) != VK_SUCCESS) {
    return VkError("vkAllocateCommandBuffers", r);
  }
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if ((r = fn.vkCreateFence(d->device_, &fci, nullptr, &d->fence_)) != VK_SUCCESS) return VkError("vkCreateFence", r);
  if (d->timestamps_) {
    VkQueryPoolCreateInfo qpi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpi.queryCount = 2;
    if ((r = fn.vkCreateQueryPool(d->device_, &qpi, nullptr, &d->queries_)) != VK_SUCCESS) {
      return VkError("vkCreateQueryPool", r);
    }
  }
  return d;
}

VulkanDevice::~VulkanDevice() {
  if (fn_ == nullptr) return;
  const Functions& fn = *fn_;
  if (device_ != VK_NULL_HANDLE && fn.vkDeviceWaitIdle != nullptr) {  // every device entry point loaded
    fn.vkDeviceWaitIdle(device_);
    if (queries_ != VK_NULL_HANDLE) fn.vkDestroyQueryPool(device_, queries_, nullptr);
    if (fence_ != VK_NULL_HANDLE) fn.vkDestroyFence(device_, fence_, nullptr);
    if (pool_ != VK_NULL_HANDLE) fn.vkDestroyCommandPool(device_, pool_, nullptr);
    fn.vkDestroyDevice(device_, nullptr);
  } else if (device_ != VK_NULL_HANDLE && fn.vkDestroyDevice != nullptr) {
    fn.vkDestroyDevice(device_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE && fn.vkDestroyInstance != nullptr) fn.vkDestroyInstance(instance_, nullptr);
}

absl::StatusOr<VulkanBuffer> VulkanDevice::Alloc(size_t bytes) const {
  const Functions& fn = *fn_;
  VulkanBuffer b;
  b.device_ = this;
  b.bytes_ = bytes;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = bytes < 4 ? 4 : bytes;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = fn.vkCreateBuffer(device_, &bci, nullptr, &b.buffer_);
  if (r != VK_SUCCESS) return VkError(absl::StrCat("creating a buffer of ", bytes, " bytes"), r);
  VkMemoryRequirements req;
  fn.vkGetBufferMemoryRequirements(device_, b.buffer_, &req);
  if (!(req.memoryTypeBits & (1u << memory_type_))) {
    return absl::InternalError("Vulkan: storage buffers cannot live in host-visible memory on this device");
  }
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = memory_type_;
  r = fn.vkAllocateMemory(device_, &mai, nullptr, &b.memory_);
  if (r != VK_SUCCESS) {
    return absl::ResourceExhaustedError(absl::StrCat("Vulkan: cannot allocate ", bytes, " bytes (VkResult ", r, ")"));
  }
  if ((r = fn.vkBindBufferMemory(device_, b.buffer_, b.memory_, 0)) != VK_SUCCESS) return VkError("vkBindBufferMemory", r);
  if ((r = fn.vkMapMemory(device_, b.memory_, 0, VK_WHOLE_SIZE, 0, &b.mapped_)) != VK_SUCCESS) return VkError("vkMapMemory", r);
  return b;
}

namespace {

absl::Status CheckRange(const VulkanBuffer& b, size_t offset, size_t bytes) {
  if (offset > b.bytes() || bytes > b.bytes() - offset) {
    return absl::OutOfRangeError(absl::StrCat("Vulkan: ", bytes, " bytes at offset ", offset, " exceed a buffer of ",
                                              b.bytes(), " bytes"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VulkanDevice::Write(const VulkanBuffer& dst, size_t offset, const void* src, size_t bytes) const {
  if (absl::Status st = CheckRange(dst, offset, bytes); !st.ok()) return st;
  std::lock_guard<std::mutex> lock(mu_);  // no dispatch runs while the host touches memory
  if (bytes > 0) std::memcpy(static_cast<uint8_t*>(dst.mapped_) + offset, src, bytes);
  return absl::OkStatus();
}

absl::Status VulkanDevice::Read(void* dst, const VulkanBuffer& src, size_t offset, size_t bytes) const {
  if (absl::Status st = CheckRange(src, offset, bytes); !st.ok()) return st;
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes > 0) std::memcpy(dst, static_cast<const uint8_t*>(src.mapped_) + offset, bytes);
  return absl::OkStatus();
}

absl::Status VulkanDevice::Copy(const VulkanBuffer& dst, size_t dst_offset, const VulkanBuffer& src,
                                size_t src_offset, size_t bytes) const {
  if (absl::Status st = CheckRange(dst, dst_offset, bytes); !st.ok()) return st;
  if (absl::Status st = CheckRange(src, src_offset, bytes); !st.ok()) return st;
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes > 0) {
    std::memmove(static_cast<uint8_t*>(dst.mapped_) + dst_offset, static_cast<const uint8_t*>(src.mapped_) + src_offset,
                 bytes);
  }
  return absl::OkStatus();
}

absl::Status VulkanDevice::Zero(const VulkanBuffer& dst, size_t offset, size_t bytes) const {
  if (absl::Status st = CheckRange(dst, offset, bytes); !st.ok()) return st;
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes > 0) std::memset(static_cast<uint8_t*>(dst.mapped_) + offset, 0, bytes);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<VulkanKernel>> VulkanDevice::CreateKernel(KernelSpec spec) const {
  for (uint32_t cap : Capabilities(spec.spirv)) {
    auto it = missing_.find(cap);
    if (it != missing_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("Vulkan: kernel ", spec.entry, " needs the ", it->second,
                                                     " feature, which ", description_, " does not have"));
    }
    if (cap != kCapShader && cap != kCapInt64 && cap != kCapFloat64 && cap != kCapInt16 && cap != kCapInt8 &&
        cap != kCapFloat16 && cap != kCapStorageBuffer8 && cap != kCapStorageBuffer16) {
      return absl::InvalidArgumentError(absl::StrCat("Vulkan: kernel ", spec.entry, " declares SPIR-V capability ", cap,
                                                     ", which kiln does not enable"));
    }
  }
  if (spec.push_constant_bytes > limits_.maxPushConstantsSize) {
    return absl::InvalidArgumentError(absl::StrCat("Vulkan: kernel ", spec.entry, " has ", spec.push_constant_bytes,
                                                   " bytes of scalar arguments; ", description_, " takes at most ",
                                                   limits_.maxPushConstantsSize));
  }
  const Functions& fn = *fn_;
  std::unique_ptr<VulkanKernel> k(new VulkanKernel(this, std::move(spec)));
  const KernelSpec& s = k->spec_;
  VkShaderModuleCreateInfo smi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smi.codeSize = s.spirv.size() * sizeof(uint32_t);
  smi.pCode = s.spirv.data();
  VkResult r = fn.vkCreateShaderModule(device_, &smi, nullptr, &k->module_);
  if (r != VK_SUCCESS) return absl::InvalidArgumentError(absl::StrCat("Vulkan: the driver rejected the SPIR-V of ", s.entry, " (VkResult ", r, ")"));
  std::vector<VkDescriptorSetLayoutBinding> bindings(s.num_buffers);
  for (uint32_t i = 0; i < s.num_buffers; ++i) {
    bindings[i] = VkDescriptorSetLayoutBinding{i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo dli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dli.bindingCount = s.num_buffers;
  dli.pBindings = bindings.data();
  if ((r = fn.vkCreateDescriptorSetLayout(device_, &dli, nullptr, &k->set_layout_)) != VK_SUCCESS) {
    return VkError("vkCreateDescriptorSetLayout", r);
  }
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, s.push_constant_bytes};
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &k->set_layout_;
  pli.pushConstantRangeCount = s.push_constant_bytes > 0 ? 1 : 0;
  pli.pPushConstantRanges = &range;
  if ((r = fn.vkCreatePipelineLayout(device_, &pli, nullptr, &k->layout_)) != VK_SUCCESS) {
    return VkError("vkCreatePipelineLayout", r);
  }
  return k;
}

// ---------------- kernels ----------------

VulkanKernel::~VulkanKernel() {
  const Functions& fn = *device_->fn_;
  VkDevice dev = device_->device_;
  for (const auto& [size, pipeline] : pipelines_) fn.vkDestroyPipeline(dev, pipeline, nullptr);
  if (layout_ != VK_NULL_HANDLE) fn.vkDestroyPipelineLayout(dev, layout_, nullptr);
  if (set_layout_ != VK_NULL_HANDLE) fn.vkDestroyDescriptorSetLayout(dev, set_layout_, nullptr);
  if (module_ != VK_NULL_HANDLE) fn.vkDestroyShaderModule(dev, module_, nullptr);
}

absl::StatusOr<VkPipeline> VulkanKernel::Pipeline(std::array<uint32_t, 3> block) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pipelines_.find(block);
  if (it != pipelines_.end()) return it->second;
  VkSpecializationMapEntry entries[3];
  for (uint32_t d = 0; d < 3; ++d) entries[d] = VkSpecializationMapEntry{d, d * 4, 4};
  VkSpecializationInfo spec{3, entries, sizeof(block), block.data()};
  VkComputePipelineCreateInfo cpi{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpi.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpi.stage.module = module_;
  cpi.stage.pName = spec_.entry.c_str();
  cpi.stage.pSpecializationInfo = &spec;
  cpi.layout = layout_;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkResult r = device_->fn_->vkCreateComputePipelines(device_->device_, VK_NULL_HANDLE, 1, &cpi, nullptr, &pipeline);
  if (r != VK_SUCCESS) return VkError(absl::StrCat("creating the pipeline of ", spec_.entry), r);
  pipelines_[block] = pipeline;
  return pipeline;
}

absl::Status VulkanKernel::Launch(const std::vector<BoundBuffer>& buffers,
                                  const std::vector<uint8_t>& push_constants, std::array<uint32_t, 3> grid,
                                  std::array<uint32_t, 3> block, uint64_t* elapsed_ns) const {
  if (elapsed_ns != nullptr) *elapsed_ns = 0;
  if (buffers.size() != spec_.num_buffers || push_constants.size() != spec_.push_constant_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("Vulkan: kernel ", spec_.entry, " takes ", spec_.num_buffers,
                                                   " buffers and ", spec_.push_constant_bytes,
                                                   " bytes of push constants, got ", buffers.size(), " and ",
                                                   push_constants.size()));
  }
  const VkPhysicalDeviceLimits& lim = device_->limits_;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const BoundBuffer& b = buffers[i];
    if (b.buffer == nullptr || b.offset > b.buffer->bytes() ||
        (lim.minStorageBufferOffsetAlignment > 0 && b.offset % lim.minStorageBufferOffsetAlignment != 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Vulkan: buffer #", i, " of ", spec_.entry, " is bound at offset ", b.offset, ", which is past its end or not a "
          "multiple of ", device_->description_, "'s storage buffer offset alignment (", lim.minStorageBufferOffsetAlignment, ")"));
    }
  }
  uint64_t invocations = uint64_t{block[0]} * block[1] * block[2];
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0 || block[d] == 0) return absl::OkStatus();  // nothing to run
    if (block[d] > lim.maxComputeWorkGroupSize[d] || grid[d] > lim.maxComputeWorkGroupCount[d]) {
      return absl::InvalidArgumentError(absl::StrCat("Vulkan: launch of ", spec_.entry, " with ", grid[d], " blocks of ",
                                                     block[d], " threads in dimension ", std::string(1, "xyz"[d]), " exceeds ",
                                                     device_->description_, "'s limits (", lim.maxComputeWorkGroupCount[d],
                                                     " blocks, ", lim.maxComputeWorkGroupSize[d], " threads)"));
    }
  }
  if (invocations > lim.maxComputeWorkGroupInvocations) {
    return absl::InvalidArgumentError(absl::StrCat("Vulkan: launch of ", spec_.entry, " with ", invocations,
                                                   " threads per block exceeds ", device_->description_, "'s ",
                                                   lim.maxComputeWorkGroupInvocations));
  }
  absl::StatusOr<VkPipeline> pipeline = Pipeline(block);
  if (!pipeline.ok()) return pipeline.status();
  const Functions& fn = *device_->fn_;
  VkDevice dev = device_->device_;

  std::lock_guard<std::mutex> lock(device_->mu_);
  // One descriptor set from a pool of its own, destroyed once the dispatch is done.
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, spec_.num_buffers > 0 ? spec_.num_buffers : 1};
  VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpi.maxSets = 1;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &size;
  VkResult r = fn.vkCreateDescriptorPool(dev, &dpi, nullptr, &pool);
  if (r != VK_SUCCESS) return VkError("vkCreateDescriptorPool", r);
  struct PoolGuard {
    const Functions& fn;
    VkDevice dev;
    VkDescriptorPool pool;
    ~PoolGuard() { fn.vkDestroyDescriptorPool(dev, pool, nullptr); }
  } guard{fn, dev, pool};
  VkDescriptorSetAllocateInfo dsa{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsa.descriptorPool = pool;
  dsa.descriptorSetCount = 1;
  dsa.pSetLayouts = &set_layout_;
  if ((r = fn.vkAllocateDescriptorSets(dev, &dsa, &set)) != VK_SUCCESS) return VkError("vkAllocateDescriptorSets", r);
  std::vector<VkDescriptorBufferInfo> infos(buffers.size());
  std::vector<VkWriteDescriptorSet> writes(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    infos[i] = VkDescriptorBufferInfo{buffers[i].buffer->buffer(), buffers[i].offset, VK_WHOLE_SIZE};
    writes[i] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  fn.vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);

  VkCommandBuffer cb = device_->commands_;
  fn.vkResetCommandBuffer(cb, 0);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if ((r = fn.vkBeginCommandBuffer(cb, &begin)) != VK_SUCCESS) return VkError("vkBeginCommandBuffer", r);
  bool timed = elapsed_ns != nullptr && device_->timestamps_;
  if (timed) fn.vkCmdResetQueryPool(cb, device_->queries_, 0, 2);
  fn.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, *pipeline);
  fn.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
  if (!push_constants.empty()) {
    fn.vkCmdPushConstants(cb, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(push_constants.size()),
                          push_constants.data());
  }
  if (timed) fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, device_->queries_, 0);
  fn.vkCmdDispatch(cb, grid[0], grid[1], grid[2]);
  if (timed) fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, device_->queries_, 1);
  // The shader's writes are made visible to host reads after the fence.
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  fn.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                          nullptr, 0, nullptr);
  if ((r = fn.vkEndCommandBuffer(cb)) != VK_SUCCESS) return VkError("vkEndCommandBuffer", r);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cb;
  fn.vkResetFences(dev, 1, &device_->fence_);
  if ((r = fn.vkQueueSubmit(device_->queue_, 1, &submit, device_->fence_)) != VK_SUCCESS) {
    return VkError(absl::StrCat("submitting ", spec_.entry), r);
  }
  r = fn.vkWaitForFences(dev, 1, &device_->fence_, VK_TRUE, kFenceTimeoutNs);
  if (r == VK_TIMEOUT) {
    return absl::DeadlineExceededError(absl::StrCat("Vulkan: kernel ", spec_.entry, " did not finish in ",
                                                    kFenceTimeoutNs / 1000000000, " s"));
  }
  if (r != VK_SUCCESS) return VkError(absl::StrCat("waiting for ", spec_.entry), r);
  if (timed) {
    uint64_t stamps[2] = {0, 0};
    r = fn.vkGetQueryPoolResults(dev, device_->queries_, 0, 2, sizeof(stamps), stamps, sizeof(uint64_t),
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r == VK_SUCCESS && stamps[1] >= stamps[0]) {
      *elapsed_ns = static_cast<uint64_t>(static_cast<double>(stamps[1] - stamps[0]) * device_->timestamp_period_ns_);
    }
  }
  return absl::OkStatus();
}

}  // namespace kiln::runtime::vulkan
