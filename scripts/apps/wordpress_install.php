<?php
// Install a fresh WordPress into the empty database the config names, and seed it:
// php wordpress_install.php URL ADMIN_PASSWORD SEED_JSON  (BROWSER_AGENT_WP_CONFIG set)
define('WP_INSTALLING', true);
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/';
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
$seed = json_decode($argv[3], true);
wp_install('Field Notes', 'admin', 'admin@example.org', true, '', wp_slash($argv[2]));
update_option('siteurl', $argv[1]);
update_option('home', $argv[1]);
switch_theme('twentytwentyone');
update_user_meta(1, $GLOBALS['wpdb']->get_blog_prefix() . 'persisted_preferences',
    array('core/edit-post' => array('welcomeGuide' => false), '_modified' => gmdate('c')));
foreach ($seed['posts'] as $post) {
    wp_insert_post(array('post_title' => $post[0], 'post_content' => $post[1],
        'post_status' => 'publish', 'post_author' => 1));
}
foreach ($seed['users'] as $user) {
    wp_insert_user(array('user_login' => $user[0], 'user_email' => $user[0] . '@example.org',
        'user_pass' => wp_generate_password(), 'role' => $user[1]));
}
