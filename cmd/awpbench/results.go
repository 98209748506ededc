package main

// results is the final JSON line. Figures not run (-only) are left out.
type results struct {
	CPUs      int     `json:"cpus"`
	CPUModel  string  `json:"cpu_model"`
	MemGiB    float64 `json:"mem_gib"`
	Quick     bool    `json:"quick,omitempty"`
	NoSync    bool    `json:"nosync,omitempty"`       // diagnosis run: nodes without fsync, not durable
	Warm      bool    `json:"warm_buffers,omitempty"` // nodes with blob buffers warmed at start (awp run --warm-buffers)
	FsyncPerS float64 `json:"fsync_per_s,omitempty"`
	Load1     float64 `json:"load1,omitempty"`     // 1-minute load average at the start
	Load1End  float64 `json:"load1_end,omitempty"` // and at the end

	MsgsN            int     `json:"msgs_n,omitempty"`
	MsgsPerS         float64 `json:"msgs_per_s,omitempty"`
	MsgsLimit        float64 `json:"msgs_limit,omitempty"`
	MsgsRatio        float64 `json:"msgs_ratio,omitempty"`
	MsgsSendOnlyPerS float64 `json:"msgs_send_only_per_s,omitempty"`
	MsgsWorkers      int     `json:"msgs_workers,omitempty"`
	MsgsFewWorkers   int     `json:"msgs_few_workers,omitempty"`
	MsgsFewPerS      float64 `json:"msgs_few_workers_per_s,omitempty"`

	ResumeN         int     `json:"resume_n,omitempty"`
	Resume100kS     float64 `json:"resume_100k_s,omitempty"`
	ResumeConnectMS float64 `json:"resume_connect_ms,omitempty"`
	ResumeQueuePerS float64 `json:"resume_queue_per_s,omitempty"`

	BlobMiB      int     `json:"blob_mib,omitempty"`
	BlobMBs      float64 `json:"blob_mb_s,omitempty"`
	BlobLimitMBs float64 `json:"blob_limit_mb_s,omitempty"`
	// The blob's bytes made durable twice at once (staged copy + received
	// file) on the disk both nodes share here: what figure 3 cannot beat.
	BlobDiskMBs    float64 `json:"blob_disk_limit_mb_s,omitempty"`
	BlobRounds     int     `json:"blob_rounds,omitempty"` // blobRounds: the limit and the blob alternated
	BlobRatio      float64 `json:"blob_ratio,omitempty"`
	BlobTotalS     float64 `json:"blob_total_s,omitempty"`
	BlobStagingS   float64 `json:"blob_staging_s,omitempty"`
	BlobTransferMB float64 `json:"blob_transfer_mb_s,omitempty"` // after staging

	HandshakeN     int     `json:"handshake_n,omitempty"`
	HandshakeMS    float64 `json:"handshake_ms,omitempty"` // median
	HandshakeP90MS float64 `json:"handshake_p90_ms,omitempty"`

	RSSMB             float64 `json:"rss_mb,omitempty"` // max over the nodes of 1 and 3
	RSSSenderMB       float64 `json:"rss_sender_mb,omitempty"`
	RSSReceiverMB     float64 `json:"rss_receiver_mb,omitempty"`
	RSSMsgsSenderMB   float64 `json:"rss_msgs_sender_mb,omitempty"`
	RSSMsgsReceiverMB float64 `json:"rss_msgs_receiver_mb,omitempty"`
	RSSBlobSenderMB   float64 `json:"rss_blob_sender_mb,omitempty"`
	RSSBlobReceiverMB float64 `json:"rss_blob_receiver_mb,omitempty"`

	// 6 and 7: the tunnel bindings, at -tunnel-n msgs and a -tunnel-blob-mib
	// blob, beside tcp:// at the same sizes (tunnel_tcp_*).
	TunnelN            int     `json:"tunnel_n,omitempty"`
	TunnelBlobMiB      int     `json:"tunnel_blob_mib,omitempty"`
	TunnelTCPMsgsPerS  float64 `json:"tunnel_tcp_msgs_per_s,omitempty"`
	TunnelTCPBlobMBs   float64 `json:"tunnel_tcp_blob_mb_s,omitempty"`
	TunnelTCPRawMBs    float64 `json:"tunnel_tcp_raw_mb_s,omitempty"` // raw loopback TCP, -tunnel-raw-mib
	TunnelRawMiB       int     `json:"tunnel_raw_mib,omitempty"`
	WGMsgsPerS         float64 `json:"wg_msgs_per_s,omitempty"`
	WGBlobMBs          float64 `json:"wg_blob_mb_s,omitempty"`
	WGBlobTransferMBs  float64 `json:"wg_blob_transfer_mb_s,omitempty"` // after staging
	WGRawMBs           float64 `json:"wg_raw_mb_s,omitempty"`
	WGBlobRatio        float64 `json:"wg_blob_ratio,omitempty"`         // wg_blob_mb_s / wg_raw_mb_s
	WGRaw2ProcMBs      float64 `json:"wg_raw_2proc_mb_s,omitempty"`     // the raw stream between two child processes
	WGBlobRatio2Proc   float64 `json:"wg_blob_ratio_2proc,omitempty"`   // wg_blob_mb_s / wg_raw_2proc_mb_s
	WGBlobRatioCeiling float64 `json:"wg_blob_ratio_ceiling,omitempty"` // 0.75 * wg_raw_2proc_mb_s / wg_raw_mb_s: wg_blob_ratio if AWP cost nothing but base64's bytes
	WGStockRawMBs      float64 `json:"wg_stock_raw_mb_s,omitempty"`     // the raw stream through stock wireguard-go + tun/netstack (a reference)
	WGBlobRatioStock   float64 `json:"wg_blob_ratio_stock,omitempty"`   // wg_blob_mb_s / wg_stock_raw_mb_s
	WGConnectMS        float64 `json:"wg_connect_ms,omitempty"`         // sender's Connect in the msgs run
	WGRawCPUmsPerMB    float64 `json:"wg_raw_cpu_ms_per_mb,omitempty"`  // CPU ms (the parent's, both devices) per MB of raw
	WGBlobCPUmsPerMB   float64 `json:"wg_blob_cpu_ms_per_mb,omitempty"` // CPU ms (both children) per MB of blob
	RSSWGSenderMB      float64 `json:"rss_wg_sender_mb,omitempty"`
	RSSWGReceiverMB    float64 `json:"rss_wg_receiver_mb,omitempty"`
	TailcatMsgsPerS    float64 `json:"tailcat_msgs_per_s,omitempty"`
	TailcatBlobMBs     float64 `json:"tailcat_blob_mb_s,omitempty"`
	TailcatBlobTransMB float64 `json:"tailcat_blob_transfer_mb_s,omitempty"`
	TailcatRawMBs      float64 `json:"tailcat_raw_mb_s,omitempty"`
	TailcatBlobRatio   float64 `json:"tailcat_blob_ratio,omitempty"` // tailcat_blob_mb_s / tailcat_raw_mb_s
	// The same as wg's three below: the raw stream between two child
	// processes, the blob against it, and the ratio if AWP cost nothing
	// but base64's bytes.
	TailcatRaw2ProcMBs      float64 `json:"tailcat_raw_2proc_mb_s,omitempty"`
	TailcatBlobRatio2Proc   float64 `json:"tailcat_blob_ratio_2proc,omitempty"`   // tailcat_blob_mb_s / tailcat_raw_2proc_mb_s
	TailcatBlobRatioCeiling float64 `json:"tailcat_blob_ratio_ceiling,omitempty"` // 0.75 * tailcat_raw_2proc_mb_s / tailcat_raw_mb_s
	TailcatConnectMS        float64 `json:"tailcat_connect_ms,omitempty"`
	TailcatMsgsRatio        float64 `json:"tailcat_msgs_ratio,omitempty"` // tailcat_msgs_per_s / tailcat_tcp_msgs_per_s
	// tailcat_msgs_per_s and tailcat_tcp_msgs_per_s are medians of
	// tailcat_msgs_rounds rounds each, tcp's and tailcat's alternated.
	TailcatTCPMsgsPerS float64 `json:"tailcat_tcp_msgs_per_s,omitempty"`
	TailcatMsgsRounds  int     `json:"tailcat_msgs_rounds,omitempty"`
	RSSTailcatSenderMB float64 `json:"rss_tailcat_sender_mb,omitempty"`
	RSSTailcatRecvMB   float64 `json:"rss_tailcat_receiver_mb,omitempty"`

	// scale (issue 22 figure 5): months of history.
	ScaleLines          int     `json:"scale_lines,omitempty"`
	ScaleThreads        int     `json:"scale_threads,omitempty"`
	ScaleBlobs          int     `json:"scale_blobs,omitempty"`
	ScaleBlobMB         float64 `json:"scale_blob_mb,omitempty"`
	ScaleDBMB           float64 `json:"scale_db_mb,omitempty"`
	ScaleGenS           float64 `json:"scale_gen_s,omitempty"`
	ScaleStartS         float64 `json:"scale_start_s,omitempty"`
	ScaleStartEmptyS    float64 `json:"scale_start_empty_s,omitempty"` // the same on an empty data dir (the floor)
	ScaleThreadsMS      float64 `json:"scale_threads_ms,omitempty"`    // median of the warm calls
	ScaleThreadsFirstMS float64 `json:"scale_threads_first_ms,omitempty"`
	ScaleThreadsCPUMS   float64 `json:"scale_threads_cpu_ms,omitempty"` // CPU time a call, node and client
	ScaleOpenMS         float64 `json:"scale_open_ms,omitempty"`        // median of the warm calls
	ScaleOpenFirstMS    float64 `json:"scale_open_first_ms,omitempty"`
	ScaleRSSMB          float64 `json:"scale_rss_mb,omitempty"`

	// fleet (issue 22 figure 6): presence at 100 nodes.
	FleetN            int     `json:"presence100_nodes,omitempty"`
	FleetEdges        int     `json:"presence100_edges,omitempty"`
	FleetDiameter     int     `json:"presence100_diameter,omitempty"`
	FleetInitialS     float64 `json:"presence100_initial_s,omitempty"`  // mesh up until every node holds every document
	FleetConvergeS    float64 `json:"presence100_converge_s,omitempty"` // one change until every node holds it
	FleetBytesPerS    float64 `json:"presence100_bytes_per_s,omitempty"`
	FleetBytesPerSMax float64 `json:"presence100_bytes_per_s_max,omitempty"` // the busiest node
	FleetHeartbeatS   float64 `json:"presence100_measured_heartbeat_s,omitempty"`
	FleetLineBytes    float64 `json:"presence100_line_bytes,omitempty"`
	FleetLinesPerDoc  float64 `json:"presence100_lines_per_doc,omitempty"`
	FleetRSSMB        float64 `json:"presence100_rss_mb,omitempty"` // the fleet process (all nodes)

	// 8: memory of an idle node (issue 22, figure 1).
	IdleRSSMB          float64 `json:"idle_rss_mb,omitempty"` // max of the two nodes' VmRSS, connected and idle
	IdleRSSReceiverMB  float64 `json:"idle_rss_receiver_mb,omitempty"`
	IdleRSSSenderMB    float64 `json:"idle_rss_sender_mb,omitempty"`
	IdleBlobMiB        int     `json:"idle_blob_mib,omitempty"`
	IdleAfterBlobRSSMB float64 `json:"idle_after_blob_rss_mb,omitempty"` // the same after a blob and idleAfterBlob alone

	// 9: latency of one short msg, Send to the receiver's event (issue 22,
	// figure 2), idle and during a -blob-mib blob on the same connection.
	LatencyN       int     `json:"latency_n,omitempty"`
	LatencyP50MS   float64 `json:"latency_p50_ms,omitempty"`
	LatencyP99MS   float64 `json:"latency_p99_ms,omitempty"`
	LatencyLimitMS float64 `json:"latency_limit_ms,omitempty"` // two fsyncs + one loopback TCP round trip, each after latencyGap idle, as the timed msgs meet them
	LatencyRatio   float64 `json:"latency_ratio,omitempty"`    // latency_p50_ms / latency_limit_ms
	// The same limit measured back to back (a hot disk queue and CPUs), as
	// the figure was before 2026-12-02, and the p50 against it.
	LatencyLimitHotMS float64 `json:"latency_limit_hot_ms,omitempty"`
	LatencyRatioHot   float64 `json:"latency_ratio_hot,omitempty"`
	// The limit's steps alone, once per msg after latencyGap idle, across
	// two processes: a 64-byte append + fsync, 8 bytes over loopback TCP,
	// the other process's append + fsync (p50). No node can beat it.
	LatencyFloorMS   float64 `json:"latency_floor_ms,omitempty"`
	LatencyBlobN     int     `json:"latency_during_blob_n,omitempty"`
	LatencyBlobP50MS float64 `json:"latency_during_blob_p50_ms,omitempty"`
	LatencyBlobP99MS float64 `json:"latency_during_blob_p99_ms,omitempty"`
	LatencyBlobMBs   float64 `json:"latency_blob_mb_s,omitempty"` // that blob's rate, from queued to complete

	// Issue 22 figure 4: figure 3's blob against the disk limit.
	BlobDiskRatio float64 `json:"blob_disk_ratio,omitempty"` // blob_mb_s / blob_disk_limit_mb_s
}
